def save_image(*args, **kwargs):
    pass


def make_grid(tensor, *args, **kwargs):
    return tensor
