-- Test-only migration (StoreMigrationTest).
CREATE TABLE gap_test_c (id INTEGER PRIMARY KEY);
