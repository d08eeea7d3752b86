"""One parser per test-runner family; `services.test_output` is the entry point."""
