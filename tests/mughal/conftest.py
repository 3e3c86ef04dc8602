import pytest

from _mughal_util import make_cfg


@pytest.fixture(scope="session")
def cfg4():
    return make_cfg(4)
