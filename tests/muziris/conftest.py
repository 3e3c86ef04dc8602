import pytest

from muziris_helpers import default_cfg


@pytest.fixture(scope="session")
def cfg():
    return default_cfg()
