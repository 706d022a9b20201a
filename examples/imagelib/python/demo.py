"""imagelib's Python side in use: run with /usr/bin/python3 python/demo.py."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import imagelib  # noqa: E402

# A dark 6x6 image with a bright 2x2 square.
image = [[20] * 6 for _ in range(6)]
for y in (2, 3):
    for x in (2, 3):
        image[y][x] = 230

pipeline = imagelib.Compose([imagelib.Threshold(100), imagelib.Invert()])
result = pipeline(pipeline(image))
mask = imagelib.threshold(imagelib.invert(image), 100)
print(pipeline.name)
for row in result:
    print("".join("#" if pixel else "." for pixel in row))
print("dark pixels:", sum(1 for row in mask for pixel in row if pixel))
