#!/usr/bin/env python3
"""Writes the histogram study's photographs as raw 8-bit samples.

usage: make_images.py [DIR]      (default: build/images, which git ignores)

Reads the test images Debian's python3-skimage ships (skimage.data; offline, nothing is downloaded)
and writes, row-major and one byte per sample:
  camera.grey.u8                                   (512 x 512, greyscale)
  astronaut.{grey,r,g,b}.u8, coffee.{grey,r,g,b}.u8 (colour: luma and each channel)
  hubble_deep_field.{grey,r,g,b}.u8                (mostly black sky: the low-entropy case)
bench-histogram reads them from $LP_IMAGE_DIR (default build/images) and tiles each to n samples.
Never commit them.
"""
import os
import sys


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/images"
    if len(sys.argv) > 2 or out in ("-h", "--help"):
        sys.exit(__doc__.strip())
    try:
        import numpy as np
        from skimage import color, data
    except ImportError as e:
        sys.exit(f"make_images.py: needs numpy and scikit-image (apt-get install python3-skimage): {e}")
    os.makedirs(out, exist_ok=True)

    def write(name, pixels):
        a = np.ascontiguousarray(pixels, dtype=np.uint8)
        path = os.path.join(out, name + ".u8")
        with open(path, "wb") as f:
            f.write(a.tobytes())
        print(f"{path}: {a.size} samples")

    def load(name):
        try:
            return getattr(data, name)()
        except Exception as e:  # a data file missing from the package: say which, and stop
            sys.exit(f"make_images.py: skimage.data.{name}() failed: {e}")

    write("camera.grey", load("camera"))
    for name in ("astronaut", "coffee", "hubble_deep_field"):
        rgb = load(name)[..., :3]
        # Luma as skimage computes it (ITU-R 709 weights), rounded to bytes.
        write(name + ".grey", np.clip(np.rint(color.rgb2gray(rgb) * 255.0), 0, 255))
        for k, ch in enumerate("rgb"):
            write(f"{name}.{ch}", rgb[..., k])


if __name__ == "__main__":
    main()
