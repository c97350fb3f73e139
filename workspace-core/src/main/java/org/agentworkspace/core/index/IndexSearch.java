package org.agentworkspace.core.index;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.HistoryIndex.MAX_QUERY;
import static org.agentworkspace.core.index.HistoryIndex.MAX_TOTAL;
import static org.agentworkspace.core.index.HistoryIndex.RANK_CANDIDATES;
import static org.agentworkspace.core.index.IndexState.displayTitle;

/** Full-text search of the {@link HistoryIndex}: SQLite (the search file, FTS5) and PostgreSQL. */
final class IndexSearch {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}_]+");
    private final IndexState st;
    private final Store store;

    IndexSearch(IndexState st) {
        this.st = st;
        this.store = st.store;
    }

    // ------------------------------------------------------------------ search

    /** A search candidate: its bm25 (FTS5's sign: lower is better; 0 unranked) and message id. */
    private record Ranked(double score, long id) {
    }

    /**
     * Full-text search over message text, best match first: SQLite FTS5 with bm25 over the newest
     * {@link HistoryIndex#RANK_CANDIDATES} matches, PostgreSQL {@code websearch_to_tsquery}/{@code ts_rank}. Every word of the
     * query must match (words are letters, digits and {@code _}; other characters separate them).
     *
     * @param provider null for every provider
     */
    SearchResults search(String query, String provider, int limit) {
        if (query == null || query.isBlank() || query.length() > MAX_QUERY) {
            throw new WorkspaceException.Validation(HistoryErrorCodes.INVALID_QUERY,
                    "give a query of 1 to " + MAX_QUERY + " characters");
        }
        List<String> words = new ArrayList<>();
        Matcher m = WORD.matcher(query.toLowerCase(Locale.ROOT));
        while (m.find() && words.size() < 32) {
            words.add(m.group());
        }
        if (words.isEmpty()) {
            throw new WorkspaceException.Validation(HistoryErrorCodes.INVALID_QUERY,
                    "the query holds no word to search for");
        }
        if (limit < 1 || limit > 500) {
            throw WorkspaceException.Validation.of("limit must be between 1 and 500");
        }
        return store.dialect() == Dialect.SQLITE ? searchSqlite(words, provider, limit)
                : searchPostgres(words, provider, limit);
    }

    private static final String HIT_COLUMNS = "s.provider, s.session_id, s.project_name, s.title, s.first_prompt, "
            + "o.title AS custom_title, m.msg_id, m.role, m.ts";

    private SearchResults searchSqlite(List<String> words, String provider, int limit) {
        // the search file keeps no token positions (FullText): each token of the query is a term of its own
        List<String> terms = Snippets.terms(words);
        if (terms.isEmpty()) {
            return new SearchResults(List.of(), 0);
        }
        String match = String.join(" ", terms.stream().map(w -> "\"" + w + "\"").toList());
        String fts = FullText.TABLE;
        String join = provider == null ? "" : " JOIN ws.history_messages m ON m.id = " + fts + ".rowid JOIN "
                + "ws.history_sessions s ON s.id = m.session_key";
        String pf = provider == null ? "" : " AND s.provider = ?";
        FullText ft = st.fullText();
        if (ft == null) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is closed", null);
        }
        java.sql.Connection c;
        try {
            c = ft.reader();
        } catch (java.sql.SQLException e) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is unavailable", e);
        }
        boolean ok = false;
        try {
            int total;
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM (SELECT " + fts + ".rowid "
                    + "FROM " + fts + join + " WHERE " + fts + " MATCH ?" + pf + " LIMIT " + MAX_TOTAL + ") x")) {
                ps.setString(1, match);
                if (provider != null) {
                    ps.setString(2, provider);
                }
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    total = rs.next() ? rs.getInt(1) : 0;
                }
            }
            // bm25 reads the whole doclist of every term (its document frequency): for a query matching more than
            // MAX_TOTAL messages relevance hardly separates them, so the newest matches come first (score 0)
            boolean common = total >= MAX_TOTAL;
            List<SearchHit> hits = new ArrayList<>();
            // the rows to show, best first: the newest matches (score 0), or the best of the newest
            // RANK_CANDIDATES by bm25, computed here (the search file keeps no token positions: see Bm25). The
            // store's rows by id: a full-text row whose message is gone (removal not applied yet) drops out.
            List<Ranked> ranked = new ArrayList<>();
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT c.rid" + (common ? "" : ", m.text")
                    + " FROM (SELECT " + fts + ".rowid AS rid FROM " + fts + join + " WHERE " + fts + " MATCH ?" + pf
                    + " ORDER BY " + fts + ".rowid DESC LIMIT " + (common ? limit : RANK_CANDIDATES)
                    + ") c JOIN ws.history_messages m ON m.id = c.rid")) {
                ps.setString(1, match);
                if (provider != null) {
                    ps.setString(2, provider);
                }
                // a lone term's row count is the total just counted (exact below MAX_TOTAL) unless a provider filtered
                Bm25 bm25 = common ? null : Bm25.of(c, fts, terms, terms.size() == 1 && provider == null ? total : -1);
                Snippets.TermCounter counter = Snippets.termCounter(terms);
                int[] counts = new int[terms.size()];
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double score = 0.0;
                        if (bm25 != null) {
                            score = bm25.score(counts, counter.count(rs.getString(2), counts));
                        }
                        ranked.add(new Ranked(score, rs.getLong(1)));
                    }
                }
            }
            // the lowest bm25 first, then the newest
            ranked.sort(Comparator.comparingDouble(Ranked::score).thenComparing(Ranked::id, Comparator.reverseOrder()));
            int n = Math.min(limit, ranked.size());
            if (n > 0) {
                Map<Long, SearchHit> byId = new HashMap<>();
                Map<Long, Double> scoreOf = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    scoreOf.put(ranked.get(i).id(), ranked.get(i).score());
                }
                try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT " + HIT_COLUMNS + ", m.text, m.id "
                        + "FROM ws.history_messages m JOIN ws.history_sessions s ON s.id = m.session_key LEFT JOIN "
                        + "ws.history_session_overrides o ON o.provider = s.provider AND o.session_id = s.session_id "
                        + "WHERE m.id IN (" + String.join(",", java.util.Collections.nCopies(n, "?")) + ")")) {
                    for (int i = 0; i < n; i++) {
                        ps.setLong(i + 1, ranked.get(i).id());
                    }
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long id = rs.getLong("id");
                            // a score as the API shows it: higher is better, 0 without ranking
                            byId.put(id, hit(rs, Snippets.snippet(rs.getString("text"), terms), 0.0 - scoreOf.get(id)));
                        }
                    }
                }
                for (int i = 0; i < n; i++) {
                    SearchHit h = byId.get(ranked.get(i).id());
                    if (h != null) {
                        hits.add(h);
                    }
                }
            }
            ok = true;
            return new SearchResults(hits, total);
        } catch (java.sql.SQLException e) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is unavailable", e);
        } finally {
            if (ok) {
                ft.release(c);
            } else {
                try {
                    c.close();
                } catch (java.sql.SQLException e) {
                    // dropped
                }
            }
        }
    }

    private SearchResults searchPostgres(List<String> words, String provider, int limit) {
        String q = String.join(" ", words);
        String pf = provider == null ? "" : " AND s.provider = :prov";
        return store.read(h -> {
            Map<String, Object> binds = new HashMap<>();
            binds.put("q", q);
            if (provider != null) {
                binds.put("prov", provider);
            }
            int total = h.createQuery("SELECT COUNT(*) FROM (SELECT m.id FROM history_messages m JOIN history_sessions s "
                    + "ON s.id = m.session_key WHERE m.text_search @@ websearch_to_tsquery('simple', :q)" + pf
                    + " LIMIT " + MAX_TOTAL + ") x").bindMap(binds).mapTo(Integer.class).one();
            List<SearchHit> hits = h.createQuery("SELECT " + HIT_COLUMNS + ", ts_headline('simple', left(m.text, "
                    + "200000), websearch_to_tsquery('simple', :q), 'StartSel=«, StopSel=», MaxWords=24, MinWords=8') "
                    + "AS snip, c.score FROM (SELECT m.id, " + (total >= MAX_TOTAL ? "0.0"
                    : "ts_rank(m.text_search, websearch_to_tsquery('simple', :q))")
                    + " AS score FROM history_messages m JOIN history_sessions s ON s.id = m.session_key WHERE "
                    + "m.text_search @@ websearch_to_tsquery('simple', :q)" + pf + " ORDER BY score DESC, m.id DESC "
                    + "LIMIT :lim) c JOIN history_messages m ON m.id = c.id JOIN history_sessions s ON s.id = "
                    + "m.session_key LEFT JOIN history_session_overrides o ON o.provider = s.provider AND "
                    + "o.session_id = s.session_id ORDER BY c.score DESC, m.id DESC")
                    .bindMap(binds).bind("lim", limit)
                    .map((rs, ctx) -> hit(rs, rs.getString("snip"), rs.getDouble("score"))).list();
            return new SearchResults(hits, total);
        });
    }

    private static SearchHit hit(java.sql.ResultSet rs, String snippet, double score) throws java.sql.SQLException {
        return new SearchHit(rs.getString("provider"), rs.getString("session_id"), rs.getString("project_name"),
                displayTitle(rs.getString("custom_title"), rs.getString("title"), rs.getString("first_prompt"),
                        rs.getString("session_id")),
                rs.getString("msg_id"), rs.getString("role"),
                rs.getObject("ts") == null ? null : Instant.ofEpochMilli(rs.getLong("ts")), snippet, score);
    }
}
