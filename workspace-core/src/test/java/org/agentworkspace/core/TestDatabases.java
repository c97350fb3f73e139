package org.agentworkspace.core;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;

/**
 * Throwaway databases for store tests: a SQLite file in a temp directory, or a fresh PostgreSQL database on the
 * server named by the system property {@code aw.test.pg.url} (default {@code 127.0.0.1:5432}, user postgres),
 * dropped afterwards. When no PostgreSQL server answers, PostgreSQL tests are skipped with the reason printed.
 */
public final class TestDatabases {
    public static final String PG_ADMIN_URL = System.getProperty("aw.test.pg.url",
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    private TestDatabases() {
    }

    public static String sqlite(Path dir) {
        return "jdbc:sqlite:" + dir.resolve("test.db");
    }

    /** Creates a database and returns its URL; skips the calling test class when PostgreSQL is unreachable. */
    public static String createPostgres() {
        String name = "aw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                .toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            String reason = "PostgreSQL not reachable at " + PG_ADMIN_URL.replaceAll("password=[^&]*", "password=***")
                    + " (" + e.getMessage() + "): PostgreSQL store tests skipped";
            System.err.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
        return PG_ADMIN_URL.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
    }

    public static void dropPostgres(String url) {
        String name = url.replaceFirst("^.*/([^/?]+)(\\?.*)?$", "$1");
        try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop test database " + name + ": " + e.getMessage());
        }
    }
}
