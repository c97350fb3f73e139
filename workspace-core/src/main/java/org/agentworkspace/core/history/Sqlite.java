package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.sqlite.SQLiteConfig;

/**
 * Read-only access to a CLI's SQLite store. The connection is opened with {@code SQLITE_OPEN_READONLY}: it never
 * writes, never checkpoints the WAL, and sees the committed content of {@code -wal} (SQLite needs the {@code -shm}
 * file, or a writable directory to create it, for that).
 */
final class Sqlite {
    private Sqlite() {
    }

    static Connection open(Path db) throws IOException {
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setReadOnly(true);
        cfg.setBusyTimeout(5000);
        try {
            return cfg.createConnection("jdbc:sqlite:" + db.toAbsolutePath());
        } catch (SQLException e) {
            throw new IOException("cannot open " + db + " read-only: " + e.getMessage(), e);
        }
    }

    /** The current row as a map from lower-case column name to value. */
    static Map<String, Object> row(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        Map<String, Object> out = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            out.put(md.getColumnLabel(i).toLowerCase(Locale.ROOT), rs.getObject(i));
        }
        return out;
    }

    static String str(Map<String, Object> row, String col) {
        Object v = row.get(col);
        if (v == null) {
            return null;
        }
        if (v instanceof byte[] b) {
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
        return v.toString();
    }

    static long lng(Map<String, Object> row, String col) {
        Object v = row.get(col);
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    /** Size of the database plus its WAL. */
    static long size(Path db) throws IOException {
        long s = Files.size(db);
        Path wal = db.resolveSibling(db.getFileName() + "-wal");
        if (Files.exists(wal)) {
            s += Files.size(wal);
        }
        return s;
    }

    /** The later modification time of the database and its WAL. */
    static Instant modified(Path db) throws IOException {
        Instant m = Files.getLastModifiedTime(db).toInstant();
        Path wal = db.resolveSibling(db.getFileName() + "-wal");
        if (Files.exists(wal)) {
            Instant w = Files.getLastModifiedTime(wal).toInstant();
            if (w.isAfter(m)) {
                m = w;
            }
        }
        return m;
    }
}
