package org.agentworkspace.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Bm25} gives the scores FTS5's own {@code bm25()} gives over an index that keeps token positions (the search
 * file's index keeps none, where FTS5 scores every row 0).
 */
class Bm25Test {
    @TempDir
    Path tmp;

    private static final String[] WORDS = {"alpha", "Beta", "gamma", "snake_case", "café", "CAFE", "über", "delta",
        "e2e", "x", "tests", "test", "ünïcödé", "日本語", "a.b", "end:", "it's", "v1_2"};

    @Test
    void scoresEqualFts5sOwnOnAnIndexWithPositions() throws Exception {
        Random r = new Random(5);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("bm25.db"));
             Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE t USING fts5(text, content='', contentless_delete=1, tokenize='unicode61')");
            List<String> texts = new ArrayList<>();
            texts.add("");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO t (rowid, text) VALUES (?, ?)")) {
                for (int id = 1; id <= 400; id++) {
                    StringBuilder sb = new StringBuilder();
                    int n = 1 + r.nextInt(r.nextInt(10) == 0 ? 200 : 20);
                    for (int k = 0; k < n; k++) {
                        sb.append(WORDS[r.nextInt(WORDS.length)]).append(r.nextInt(5) == 0 ? ", " : " ");
                    }
                    texts.add(sb.toString());
                    ins.setLong(1, id);
                    ins.setString(2, sb.toString());
                    ins.executeUpdate();
                }
            }
            // deletions move the row and token counts the scores depend on
            s.execute("DELETE FROM t WHERE rowid % 7 = 0");
            int compared = 0;
            for (int q = 0; q < 300; q++) {
                List<String> words = new ArrayList<>();
                int n = 1 + r.nextInt(3);
                for (int k = 0; k < n; k++) {
                    words.add(WORDS[r.nextInt(WORDS.length)].toLowerCase(java.util.Locale.ROOT));
                }
                List<String> terms = Snippets.terms(words);
                String match = String.join(" ", terms.stream().map(w -> "\"" + w + "\"").toList());
                Bm25 bm25 = Bm25.of(c, "t", terms, -1);
                Snippets.TermCounter counter = Snippets.termCounter(terms);
                // a lone term's row count given by the caller (the search's total) weighs the same
                Bm25 given = null;
                if (terms.size() == 1) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t WHERE t MATCH ?")) {
                        ps.setString(1, match);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            given = Bm25.of(c, "t", terms, rs.getLong(1));
                        }
                    }
                }
                int[] counts = new int[terms.size()];
                try (PreparedStatement ps = c.prepareStatement("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?")) {
                    ps.setString(1, match);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            String text = texts.get(rs.getInt(1));
                            int length = counter.count(text, counts);
                            double want = rs.getDouble(2);
                            double got = bm25.score(counts, length);
                            assertEquals(want, got, 1e-9 * Math.max(1, Math.abs(want)), match + " on " + text);
                            if (given != null) {
                                assertEquals(got, given.score(counts, length));
                            }
                            assertTrue(got < 0, "a matching row scores below 0");
                            compared++;
                        }
                    }
                }
            }
            assertTrue(compared > 1000, "compared " + compared);
        }
    }
}
