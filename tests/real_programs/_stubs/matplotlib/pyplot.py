class _Anything:
    def __repr__(self):
        return "<matplotlib stand-in>"

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __iter__(self):
        return iter([_Anything(), _Anything()])

    def __getitem__(self, key):
        return _Anything()


def __getattr__(name):
    return _Anything()
