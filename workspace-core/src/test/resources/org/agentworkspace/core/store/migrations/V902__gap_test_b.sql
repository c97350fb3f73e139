-- Test-only migration (StoreMigrationTest): the one that fills the gap later.
CREATE TABLE gap_test_b (id INTEGER PRIMARY KEY);
