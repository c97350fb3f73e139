-- Test-only migration (StoreMigrationTest): never listed by the real build.
CREATE TABLE gap_test_a (id INTEGER PRIMARY KEY);
