"""Stand-in for ``tiktoken`` (installed in neither environment, and its GPT-2 encoding is a
download): ``get_encoding("gpt2")`` gives a byte-level tokenizer. ``encode`` maps text to its
UTF-8 bytes (ids 0-255), with ``<|endoftext|>`` as id 50256 when allowed, as in GPT-2;
``decode`` maps ids below 256 back to bytes, 50256 to ``<|endoftext|>`` and any other id to
``<id>``. The vocabulary size stays GPT-2's 50257, so models built for it are unchanged."""

EOT = "<|endoftext|>"


class Encoding:
    """A byte-level tokenizer with GPT-2's vocabulary size."""

    name = "gpt2"
    n_vocab = 50257
    eot_token = 50256

    def encode(self, text, allowed_special=(), disallowed_special="all"):
        ids = []
        parts = text.split(EOT) if EOT in allowed_special or allowed_special == "all" else [text]
        for k, part in enumerate(parts):
            if k:
                ids.append(self.eot_token)
            ids.extend(part.encode("utf-8"))
        return ids

    def decode(self, ids):
        out, buf = [], bytearray()
        for i in ids:
            if i < 256:
                buf.append(i)
                continue
            out.append(buf.decode("utf-8", errors="replace"))
            buf = bytearray()
            out.append(EOT if i == self.eot_token else f"<{i}>")
        out.append(buf.decode("utf-8", errors="replace"))
        return "".join(out)


def get_encoding(name):
    """Only ``"gpt2"``."""
    if name != "gpt2":
        raise ValueError(f"tiktoken stand-in: unknown encoding {name!r}")
    return Encoding()
