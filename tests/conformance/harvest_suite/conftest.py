# A stand-in for a TVM test tree's conftest.py (tests/conformance/harvest_test.py runs the harvest here).
