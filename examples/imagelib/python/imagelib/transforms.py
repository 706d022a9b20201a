"""Transforms: callable objects built from the functions."""

from . import functional as F


class Transform:
    """The base of every transform (not API itself: nothing constructs it)."""

    def __init__(self, name):
        self.name = name

    def __call__(self, image):
        raise NotImplementedError


class Threshold(Transform):
    def __init__(self, level):
        super().__init__("threshold")
        self.level = level

    def __call__(self, image):
        return F.threshold(image, self.level)


class Invert(Transform):
    def __init__(self):
        super().__init__("invert")

    def __call__(self, image):
        return F.invert(image)


class Compose(Transform):
    """Transforms applied in turn."""

    def __init__(self, transforms):
        super().__init__("+".join(t.name for t in transforms))
        self.transforms = list(transforms)

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image
