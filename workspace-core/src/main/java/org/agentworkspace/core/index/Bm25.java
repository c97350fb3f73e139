package org.agentworkspace.core.index;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * FTS5's bm25 ({@code fts5_aux.c}, k1 = 1.2, b = 0.75) computed in Java for the search file's index, which keeps no
 * token positions ({@code detail=none}): there FTS5's own {@code bm25()} sees no term occurrences and scores every
 * row 0. The inputs are what FTS5 uses: the number of rows and of tokens from the index's averages record, the
 * number of rows holding each term from the index, and each candidate's term frequencies and length in tokens
 * counted by {@link Snippets#termCounter} as the unicode61 tokenizer counts them. Lower is better, as in FTS5;
 * {@code Bm25Test} holds the scores against FTS5's {@code bm25()} over an index that keeps positions. FTS5's own
 * function needs an index with positions: kept for the benchmark named in {@link Snippets} (issue #19).
 */
final class Bm25 {
    private static final double K1 = 1.2;
    private static final double B = 0.75;

    private final double[] idf;
    private final double avgdl;

    private Bm25(double[] idf, double avgdl) {
        this.idf = idf;
        this.avgdl = avgdl;
    }

    /**
     * The weights of {@code terms} in the FTS5 table {@code table} reached through {@code c} (each term one token:
     * it is matched as a quoted string). {@code onlyTermRows}: the number of rows holding the query's only term when
     * the caller has just counted it (-1 when not known), which spares one pass over that term's rows.
     */
    static Bm25 of(Connection c, String table, List<String> terms, long onlyTermRows) throws SQLException {
        long rows = 0;
        long tokens = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT block FROM " + table + "_data WHERE id = 1");
             ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                byte[] record = rs.getBytes(1);
                long[] v = new long[2];
                int at = varint(record, 0, v, 0);
                if (at < record.length) {
                    varint(record, at, v, 1);
                }
                rows = v[0];
                tokens = v[1];
            }
        }
        double n = Math.max(1, rows);
        double[] idf = new double[terms.size()];
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE " + table
                + " MATCH ?")) {
            for (int i = 0; i < idf.length; i++) {
                long hits;
                if (onlyTermRows >= 0 && idf.length == 1) {
                    hits = onlyTermRows;
                } else {
                    ps.setString(1, "\"" + terms.get(i) + "\"");
                    try (ResultSet rs = ps.executeQuery()) {
                        hits = rs.next() ? rs.getLong(1) : 0;
                    }
                }
                double w = Math.log((n - hits + 0.5) / (hits + 0.5));
                idf[i] = w <= 0.0 ? 1e-6 : w;
            }
        }
        // a matching row implies tokens; an empty index still must not divide by zero
        return new Bm25(idf, tokens > 0 ? tokens / n : 1.0);
    }

    /** The score of a row holding the terms {@code freq} times (in the order of {@link #of}'s terms) in
     * {@code length} tokens. */
    double score(int[] freq, int length) {
        double score = 0;
        for (int i = 0; i < idf.length; i++) {
            score += idf[i] * (freq[i] * (K1 + 1.0)) / (freq[i] + K1 * (1 - B + B * length / avgdl));
        }
        return -score;
    }

    /** Reads an SQLite varint at {@code at} into {@code out[slot]}; the offset after it. */
    static int varint(byte[] b, int at, long[] out, int slot) {
        long v = 0;
        int i = at;
        for (int k = 0; k < 8 && i < b.length; k++) {
            int x = b[i++] & 0xFF;
            v = (v << 7) | (x & 0x7F);
            if ((x & 0x80) == 0) {
                out[slot] = v;
                return i;
            }
        }
        if (i < b.length) {
            v = (v << 8) | (b[i++] & 0xFF);
        }
        out[slot] = v;
        return i;
    }
}
