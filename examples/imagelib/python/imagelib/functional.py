"""Functions on images: lists of rows of 0..255 ints."""


def threshold(image, level):
    """Pixels above level become 255, the others 0."""
    return [[255 if pixel > level else 0 for pixel in row] for row in image]


def invert(image):
    return [[_clamp(255 - pixel) for pixel in row] for row in image]


def histogram(image):
    """How many pixels have each value."""
    counts = [0] * 256
    for row in image:
        for pixel in row:
            counts[_clamp(pixel)] += 1
    return counts


def _clamp(value):
    # A private helper: no rule selects it.
    return min(255, max(0, value))
