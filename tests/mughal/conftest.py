import pytest

from mughal_helpers import make_cfg


@pytest.fixture(scope="session")
def cfg4():
    return make_cfg(4)
