package org.agentworkspace.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The relational store. SQLite (the default, one file in the data directory, WAL, one writer at a time in this
 * process) or PostgreSQL (chosen by a {@code jdbc:postgresql:} URL). Numbered migrations run on open, inside a
 * transaction, serialised across nodes on PostgreSQL by an advisory lock.
 *
 * <p>Reads run on their own auto-commit handle; writes run in one transaction each. Connections stay open between
 * handles, so a warm read does not pay for opening one: on PostgreSQL in a HikariCP pool of at most
 * {@value #PG_POOL_SIZE} (a caller waits up to {@link #PG_CONNECTION_TIMEOUT_MS} ms when all are out), on SQLite up
 * to 4 in {@link IdleConnections}. On SQLite, writes from this
 * process queue on a lock (SQLite allows one writer) and the transaction begins IMMEDIATE, so readers never block
 * and writers never fail with SQLITE_BUSY.
 */
public final class Store implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Store.class.getName());
    /**
     * The migrations this build knows. The number in each name ({@code V003__runs.sql} → 3) is its version; the list
     * order does not matter and numbers may have gaps (families land on separate branches). Never edit a released
     * one: add a new file.
     */
    static final List<String> MIGRATIONS = List.of(
            "V001__accounts.sql", "V002__projects.sql", "V003__runs.sql", "V004__history_index.sql",
            "V005__provider_credentials.sql", "V006__user_settings.sql", "V007__automation_tasks.sql",
            "V008__history_clipped_tools.sql", "V009__history_search_file.sql", "V010__agent_loop.sql",
            "V011__login_failures.sql", "V012__notifications.sql", "V013__web_push.sql",
            "V014__agent_loop_review_commits.sql", "V015__agent_loop_checkpoints.sql",
            "V016__account_provider_credentials.sql", "V017__run_ownership.sql", "V018__run_worktrees.sql",
            "V019__task_isolation_and_workflow_runs.sql", "V020__nodes.sql", "V021__run_requests.sql",
            "V022__node_roots.sql", "V023__shared_caps.sql", "V024__workflow_run_nodes.sql",
            "V025__run_launch_specs.sql");
    private static final Pattern MIGRATION_NAME = Pattern.compile("V(\\d{3,})__[a-z0-9_]+\\.sql");
    private static final long PG_MIGRATION_LOCK = 0x4157_5350L;
    /** Connections kept open between handles (more are opened when needed; see {@link IdleConnections}). */
    private static final int MAX_IDLE_CONNECTIONS = 4;

    private final Dialect dialect;
    private final String url;
    private final Jdbi jdbi;
    /** PostgreSQL: the most connections the pool opens (request threads, the run log's writer, the index). */
    static final int PG_POOL_SIZE = 16;
    /** PostgreSQL: how long a caller waits for a connection when all {@link #PG_POOL_SIZE} are out. */
    static final long PG_CONNECTION_TIMEOUT_MS = 30_000;

    /** SQLite's kept connections, or null on PostgreSQL. */
    private final IdleConnections connections;
    /** PostgreSQL's pool, or null on SQLite. */
    private final HikariDataSource pool;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The unpooled data source (a dedicated connection for LISTEN). */
    private final DataSource rawSource;

    private Store(Dialect dialect, String url, DataSource dataSource) {
        this.dialect = dialect;
        this.url = url;
        this.rawSource = dataSource;
        if (dialect == Dialect.POSTGRESQL) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(dataSource);
            config.setPoolName("aw-store");
            config.setMaximumPoolSize(PG_POOL_SIZE);
            config.setMinimumIdle(MAX_IDLE_CONNECTIONS);
            config.setConnectionTimeout(PG_CONNECTION_TIMEOUT_MS);
            // no connection is opened here: a PostgreSQL that does not answer fails the first use (the migration),
            // which Store.open reports as STORE_UNAVAILABLE
            config.setInitializationFailTimeout(-1);
            this.pool = new HikariDataSource(config);
            this.connections = null;
            this.jdbi = Jdbi.create(pool);
        } else {
            this.pool = null;
            this.connections = new IdleConnections(dataSource, MAX_IDLE_CONNECTIONS);
            this.jdbi = Jdbi.create(connections);
        }
    }

    /**
     * Opens the store and brings its schema up to date.
     *
     * @param jdbcUrl a {@code jdbc:sqlite:} or {@code jdbc:postgresql:} URL
     */
    public static Store open(String jdbcUrl) {
        return open(jdbcUrl, MIGRATIONS);
    }

    /** Opens the store with a given migration list (tests of the migration rules). */
    static Store open(String jdbcUrl, List<String> migrations) {
        Dialect dialect = Dialect.of(jdbcUrl);
        if (dialect == Dialect.SQLITE) {
            initSqliteFile(jdbcUrl);
        }
        Store store = new Store(dialect, jdbcUrl, dataSource(dialect, jdbcUrl));
        try {
            store.migrate(migrations);
        } catch (RuntimeException e) {
            throw new WorkspaceException.Unavailable(ErrorCodes.STORE_UNAVAILABLE,
                    "the store could not be opened or migrated", e);
        }
        return store;
    }

    /** Page size of a new SQLite store file (see {@link #initSqliteFile}). */
    static final int SQLITE_PAGE_SIZE = 16_384;

    /**
     * Gives a new (missing or empty) SQLite store file its page size before anything else writes it: the page size
     * is fixed once the file has content, and the WAL mode the data source sets first would otherwise fix SQLite's
     * default of 4 KiB. 16 KiB pages: storing the 2 GB benchmark history's 817,000 message rows took about a fifth
     * less writer CPU than with 4 KiB pages (docs/benchmarks.md). An existing file keeps its page size.
     */
    private static void initSqliteFile(String jdbcUrl) {
        String path = jdbcUrl.substring("jdbc:sqlite:".length());
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        if (path.isEmpty() || path.startsWith(":") || path.startsWith("file:")) {
            return;
        }
        Path file = Path.of(path);
        try {
            if (Files.exists(file) && Files.size(file) > 0) {
                return;
            }
        } catch (IOException e) {
            return;
        }
        SQLiteDataSource plain = new SQLiteDataSource();
        plain.setUrl(jdbcUrl);
        try (java.sql.Connection c = plain.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("PRAGMA page_size = " + SQLITE_PAGE_SIZE);
            // the first write: the file's header now records the page size
            s.execute("PRAGMA journal_mode = WAL");
        } catch (java.sql.SQLException e) {
            // the data source reports what is wrong with the file
        }
    }

    /** The default SQLite URL for a data directory; the file is created with mode 0600 when missing. */
    public static String sqliteUrl(Path dataDir) {
        Path file = dataDir.resolve("workspace.db");
        try {
            if (Files.notExists(file)) {
                SecureFiles.createPrivateFile(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the database file", e);
        }
        return "jdbc:sqlite:" + file;
    }

    private static DataSource dataSource(Dialect dialect, String url) {
        return switch (dialect) {
            case SQLITE -> {
                SQLiteConfig config = new SQLiteConfig();
                config.setJournalMode(SQLiteConfig.JournalMode.WAL);
                config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
                config.setBusyTimeout(30_000);
                config.enforceForeignKeys(true);
                config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
                SQLiteDataSource ds = new SQLiteDataSource(config);
                ds.setUrl(url);
                yield ds;
            }
            case POSTGRESQL -> {
                PGSimpleDataSource ds = new PGSimpleDataSource();
                ds.setUrl(url);
                yield ds;
            }
        };
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * PostgreSQL: a new connection outside the pool, held by its caller for as long as it likes (a {@code LISTEN}
     * that waits for notices); the caller closes it.
     */
    public java.sql.Connection dedicatedConnection() throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            throw new IllegalStateException("dedicated connections are for PostgreSQL");
        }
        return rawSource.getConnection();
    }

    /**
     * The database file of an SQLite store ({@code jdbc:sqlite:PATH} or {@code jdbc:sqlite:file:PATH?...}); empty for
     * PostgreSQL and for in-memory SQLite.
     */
    public Optional<Path> sqliteFile() {
        if (dialect != Dialect.SQLITE) {
            return Optional.empty();
        }
        String rest = url.substring("jdbc:sqlite:".length());
        if (rest.startsWith("file:")) {
            rest = rest.substring("file:".length());
            int q = rest.indexOf('?');
            if (q >= 0) {
                rest = rest.substring(0, q);
            }
        }
        if (rest.isEmpty() || rest.startsWith(":memory:") || rest.contains("mode=memory")) {
            return Optional.empty();
        }
        return Optional.of(Path.of(rest).toAbsolutePath());
    }

    /** After a burst of work (a full index read): idle SQLite connections give their page caches back. */
    public void releaseMemory() {
        if (dialect == Dialect.SQLITE) {
            connections.onIdle("PRAGMA shrink_memory");
        }
    }

    /** Runs a read on an auto-commit handle. */
    public <R> R read(Function<Handle, R> work) {
        return jdbi.withHandle(work::apply);
    }

    /** Runs {@code work} in one write transaction; on SQLite, one writer at a time. */
    public <R> R write(Function<Handle, R> work) {
        if (dialect == Dialect.SQLITE) {
            writeLock.lock();
            try {
                return jdbi.inTransaction(work::apply);
            } finally {
                writeLock.unlock();
            }
        }
        return jdbi.inTransaction(work::apply);
    }

    /** The highest migration version this build knows; {@link #schemaVersion()} equals it once open. */
    public static int latestSchemaVersion() {
        return MIGRATIONS.stream().mapToInt(Store::version).max().orElse(0);
    }

    /** The schema version now applied (the highest applied migration). */
    public int schemaVersion() {
        return read(h -> h.createQuery("SELECT COALESCE(MAX(version), 0) FROM schema_version")
                .mapTo(Integer.class).one());
    }

    /** True when {@code e} (or a cause) is a unique or primary-key violation, on either dialect. */
    public static boolean isUniqueViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                if ("23505".equals(sql.getSQLState())) {
                    return true;
                }
                String msg = String.valueOf(sql.getMessage());
                if (msg.contains("SQLITE_CONSTRAINT_UNIQUE") || msg.contains("SQLITE_CONSTRAINT_PRIMARYKEY")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Applies, in ascending version order, every known migration not yet recorded in {@code schema_version}, each
     * recorded with its own version. A version recorded in the database but unknown to this build means the schema
     * is newer than the build, and stops the open.
     */
    private void migrate(List<String> migrations) {
        TreeMap<Integer, String> known = new TreeMap<>();
        for (String name : migrations) {
            if (known.put(version(name), name) != null) {
                throw new IllegalStateException("two migrations share version " + version(name));
            }
        }
        write(h -> {
            if (dialect == Dialect.POSTGRESQL) {
                h.execute("SELECT pg_advisory_xact_lock(" + PG_MIGRATION_LOCK + ")");
            }
            h.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                    + "name TEXT NOT NULL, applied_at BIGINT NOT NULL)");
            Set<Integer> applied = new HashSet<>(h.createQuery("SELECT version FROM schema_version")
                    .mapTo(Integer.class).list());
            for (int v : applied) {
                if (!known.containsKey(v)) {
                    throw new IllegalStateException("the database schema has migration " + v
                            + ", which this build does not know (it knows up to " + known.lastKey() + ")");
                }
            }
            for (Map.Entry<Integer, String> m : known.entrySet()) {
                if (applied.contains(m.getKey())) {
                    continue;
                }
                for (String statement : statements(dialect.expand(resource(m.getValue())))) {
                    h.execute(statement);
                }
                h.createUpdate("INSERT INTO schema_version (version, name, applied_at) VALUES (:v, :n, :t)")
                        .bind("v", m.getKey()).bind("n", m.getValue()).bind("t", System.currentTimeMillis())
                        .execute();
                LOG.log(System.Logger.Level.INFO, "applied migration {0}", m.getValue());
            }
            return null;
        });
    }

    /** The version number in a migration file name. */
    static int version(String name) {
        Matcher m = MIGRATION_NAME.matcher(name);
        if (!m.matches()) {
            throw new IllegalArgumentException("migration names look like V003__name.sql: " + name);
        }
        return Integer.parseInt(m.group(1));
    }

    /** Splits a migration into statements at semicolons that end a line; comments are dropped. */
    static List<String> statements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : sql.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String s = current.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }

    private static String resource(String name) {
        try (InputStream in = Store.class.getResourceAsStream("migrations/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing migration " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        } else {
            connections.close();
        }
    }

    /** Wraps Jdbi failures so callers outside the store see one exception type. */
    public static RuntimeException unavailable(JdbiException e) {
        return new WorkspaceException.Unavailable(ErrorCodes.STORE_UNAVAILABLE, "the store is unavailable", e);
    }
}
