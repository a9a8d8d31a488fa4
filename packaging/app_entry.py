"""Entry point of the frozen app (`make app`, packaging/pra.spec): the same ``main()`` as
``python main.py``, GUI and CLI alike."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()      # a frozen program must not re-run main() in children
    from main import main

    sys.exit(main())
