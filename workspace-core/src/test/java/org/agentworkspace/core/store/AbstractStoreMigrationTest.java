package org.agentworkspace.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Migration versions come from the file names, not the list position: gaps are allowed, a gap filled later is
 * applied, and a version the build does not know stops the open. Subclasses supply SQLite or PostgreSQL.
 */
abstract class AbstractStoreMigrationTest {
    protected String url;

    protected abstract String createDatabase() throws Exception;

    protected void dropDatabase() throws Exception {
    }

    @BeforeEach
    void create() throws Exception {
        url = createDatabase();
    }

    @AfterEach
    void drop() throws Exception {
        dropDatabase();
    }

    private static List<Integer> versions(Store store) {
        return store.read(h -> h.createQuery("SELECT version FROM schema_version ORDER BY version")
                .mapTo(Integer.class).list());
    }

    @Test
    void theRealListIsAppliedByFileNumber() {
        try (Store store = Store.open(url)) {
            List<Integer> v = versions(store);
            assertEquals(1, v.getFirst());
            assertEquals(Store.latestSchemaVersion(), v.getLast());
            assertEquals(Store.latestSchemaVersion(), store.schemaVersion());
            // the runs tables exist (V003), whatever else lands in between
            assertEquals(0, (int) store.read(h -> h.createQuery("SELECT COUNT(*) FROM run_events").mapTo(Integer.class).one()));
        }
    }

    @Test
    void v017BackfillsTypedRunOwnershipFromTheJsonMetadataAndTheSessionFromTheLog() {
        List<String> before = Store.MIGRATIONS.stream().filter(n -> Store.version(n) < 17).toList();
        try (Store s = Store.open(url, before)) {
            s.write(h -> {
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata) VALUES ('run_a', 'claude', "
                        + "'succeeded', 1, '{\"userId\":7,\"projectId\":\"web\",\"taskId\":\"t1\",\"route\":\"task\"}')");
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata) VALUES ('run_b', 'claude', "
                        + "'failed', 2, '{\"userId\":\"not a number\",\"resumeSessionId\":\"s-old\"}')");
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata) VALUES ('run_c', 'codex', "
                        + "'failed', 3, '{\"route\":\"ws\",\"resumeSessionId\":\"s-old\"}')");
                h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES ('run_a', 1, 'event', "
                        + "'{\"kind\":\"session\",\"data\":{\"sessionId\":\"s-a\"}}', 1)");
                h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES ('run_c', 1, 'event', "
                        + "'{\"kind\":\"completed\",\"data\":{\"success\":true,\"sessionId\":\"s-c\"}}', 3)");
                return null;
            });
        }
        try (Store s = Store.open(url)) {
            List<String> rows = s.read(h -> h.createQuery("SELECT id, account_id, project, task_id, origin, "
                    + "session_id, outcome_known FROM runs ORDER BY id").map((rs, ctx) -> rs.getString(1) + "|"
                    + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4) + "|" + rs.getString(5)
                    + "|" + rs.getString(6) + "|" + rs.getInt(7)).list());
            assertEquals(List.of("run_a|7|web|t1|task|s-a|0", "run_b|null|null|null|null|s-old|0",
                    "run_c|null|null|null|ws|s-c|0"), rows);
        }
    }

    @Test
    void aGapIsAllowedAndFilledLaterInAscendingOrder() {
        try (Store s = Store.open(url, List.of("V903__gap_test_c.sql", "V001__accounts.sql", "V901__gap_test_a.sql"))) {
            assertEquals(List.of(1, 901, 903), versions(s));
            assertEquals(903, s.schemaVersion());
        }
        try (Store s = Store.open(url, List.of("V001__accounts.sql", "V901__gap_test_a.sql", "V902__gap_test_b.sql",
                "V903__gap_test_c.sql"))) {
            assertEquals(List.of(1, 901, 902, 903), versions(s));
            assertEquals(0, (int) s.read(h -> h.createQuery("SELECT COUNT(*) FROM gap_test_b").mapTo(Integer.class).one()));
        }
        // reopening applies nothing twice
        try (Store s = Store.open(url, List.of("V001__accounts.sql", "V901__gap_test_a.sql", "V902__gap_test_b.sql",
                "V903__gap_test_c.sql"))) {
            assertEquals(List.of(1, 901, 902, 903), versions(s));
        }
    }

    @Test
    void aRecordedVersionThisBuildDoesNotKnowStopsTheOpen() {
        try (Store s = Store.open(url, List.of("V001__accounts.sql", "V901__gap_test_a.sql"))) {
            assertEquals(List.of(1, 901), versions(s));
        }
        WorkspaceException.Unavailable e = assertThrows(WorkspaceException.Unavailable.class,
                () -> Store.open(url, List.of("V001__accounts.sql")));
        assertEquals("the database schema has migration 901, which this build does not know (it knows up to 1)",
                e.getCause().getMessage());
    }

    @Test
    void malformedNamesAndDuplicateVersionsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Store.version("V1__x.sql"));
        assertThrows(IllegalArgumentException.class, () -> Store.version("003__x.sql"));
        assertEquals(3, Store.version("V003__runs.sql"));
        assertThrows(WorkspaceException.Unavailable.class,
                () -> Store.open(url, List.of("V001__accounts.sql", "V001__accounts.sql")));
    }
}
