package org.agentworkspace.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Snippets#snippet} gives exactly what the linked SQLite's FTS5 {@code snippet(tbl, 0, '«', '»', '…', 16)}
 * gives on a {@code unicode61} table for the query {@code '"w1" "w2" ...'}: on pseudo-random texts (fixed seed;
 * 1 to 300 words, punctuation, sentence ends, newlines, digits, mixed case, precomposed and combining accents,
 * Cyrillic, Greek, CJK, Hangul, Arabic, Devanagari, emoji, underscores, fullwidth letters; the words drawn from the
 * text as {@link HistoryIndex#search} splits a query, some of them only once in the text, some repeated in the
 * query), on hand-written edge cases, and on the character tables themselves (every code point's class and
 * folding).
 *
 * <p>NUL and lone surrogates, which the driver and FTS5's C strings treat their own way, are left to the
 * hand-written cases. A random query whose words do not all occur in the text as FTS5 tokenizes it (when the
 * query splitting and unicode61 disagree: {@code İ} lower-cases to {@code i} and a combining dot, a combining
 * accent or a private-use character splits a query word but not a token, {@code 🥰} is a token character) matches
 * no row in FTS5, so there is nothing to compare; such cases are counted and must stay rare.
 */
class SnippetsTest {
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}_]+");

    @TempDir
    Path tmp;

    private Connection db;

    @BeforeEach
    void open() throws SQLException {
        db = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("fts.db"));
        try (Statement s = db.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE tbl USING fts5(text, tokenize='unicode61')");
            // a second column to match on, so that snippet() of column 0 sees no instance (a stale text)
            s.execute("CREATE VIRTUAL TABLE stale USING fts5(text, tag, tokenize='unicode61')");
        }
    }

    @AfterEach
    void close() throws SQLException {
        db.close();
    }

    @Test
    void randomTextsGiveWhatFts5Gives() throws SQLException {
        Random rnd = new Random(20_240_611L);
        List<String> texts = new ArrayList<>();
        List<List<String>> queries = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            List<String> textWords = new ArrayList<>();
            texts.add(randomText(rnd, textWords));
            queries.add(randomQuery(rnd, textWords));
        }
        List<String> expected = fts5(texts, queries);
        List<String> failures = new ArrayList<>();
        int compared = 0;
        for (int i = 0; i < texts.size(); i++) {
            if (expected.get(i) == null) {
                continue;
            }
            compared++;
            String actual = Snippets.snippet(texts.get(i), queries.get(i));
            if (!expected.get(i).equals(actual)) {
                failures.add("case " + i + " words " + queries.get(i) + "\n  text     " + show(texts.get(i))
                        + "\n  fts5     " + show(expected.get(i)) + "\n  snippets " + show(actual));
            }
        }
        assertTrue(compared >= texts.size() * 95 / 100, "only " + compared + " of the queries matched in FTS5");
        assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())),
                failures.size() + " of " + compared + " differ");
    }

    @Test
    void handWrittenCasesGiveWhatFts5Gives() throws SQLException {
        String longText = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                + "fifteen sixteen seventeen eighteen nineteen twenty";
        Object[][] cases = {
            {"hello", List.of("hello")},
            {"  «hello», world!  ", List.of("hello")},
            {"Hello HELLO hello", List.of("hello")},
            {longText, List.of("one")},
            {longText, List.of("twenty")},
            {longText, List.of("ten")},
            {longText, List.of("sixteen")},
            {longText, List.of("seventeen")},
            {longText, List.of("two", "nineteen")},
            {longText, List.of("nine", "ten")},
            {longText + " one", List.of("one")},
            {longText.replace("ten ", "ten. "), List.of("fourteen")},
            {longText.replace("ten ", "ten.").replace("eleven", "Eleven"), List.of("fourteen")},
            {longText.replace("ten ", "ten:\n\t"), List.of("twenty")},
            {longText.replace("ten ", "ten .  "), List.of("nineteen")},
            {longText + ".", List.of("twenty")},
            {longText + "...!", List.of("four")},
            {"foo_bar and foo-bar and foo bar and foobar, " + longText, List.of("foo_bar")},
            {longText + " foo bar", List.of("foo_bar")},
            {longText.replace("sixteen", "sixteen foo") + " foo bar", List.of("foo_bar", "sixteen")},
            {longText.replace("fifteen sixteen", "foo bar"), List.of("foo_bar")},
            {longText.replace("sixteen seventeen", "foo bar"), List.of("foo_bar")},
            {"a a a a a a a a a a a a a a a a a a a a a a", List.of("a")},
            {"a a a a a a a a a a a a a a a a a a a a a a", List.of("a", "a")},
            {"a b a b a b a b a b a b a b a b a b a b a b a b a b", List.of("a_b")},
            {"a b a b a b a b a b a b a b a b a b a b a b a b a b", List.of("a_b", "b_a")},
            {"x y z " + longText + " x y z", List.of("x_y", "y_z")},
            {"Un café, un Café, un CAFÉ et un cafe\u0301 — " + longText, List.of("café")},
            {longText + " Ça marche: naïve façade", List.of("naive", "facade")},
            {"Привет, мир! Йогурт и йод. " + longText, List.of("йогурт")},
            {"日本語のテキスト 日本語 " + longText, List.of("日本語")},
            {"emoji 🥰 love 😀 smile " + longText, List.of("love")},
            {"tab\tsep\r\nline: next. end.  Go", List.of("next")},
            {longText, List.of("_", "five")},
            {"abc\u0000def ghi jkl", List.of("ghi")},
            {"ghi\u0000 tail", List.of("ghi")},
            {"one\u0000 two three ghi " + longText + " \u0000end", List.of("ghi")},
            {"abc \uD800 def ghi", List.of("ghi")},
            {"x \uDC00y ghi \uDC00\uD800\uD83E\uDD70 \uD83E", List.of("ghi")},
        };
        for (Object[] c : cases) {
            String text = (String) c[0];
            @SuppressWarnings("unchecked")
            List<String> words = (List<String>) c[1];
            String expected = fts5(List.of(text), List.of(words)).get(0);
            assertNotNull(expected, () -> "no match for " + words + " in " + show(text));
            assertEquals(expected, Snippets.snippet(text, words), () -> "words " + words + " text " + show(text));
        }
    }

    @Test
    void aTextWithoutTheWordsGivesItsFirstTokens() throws SQLException {
        String longText = "It was the best of times, it was the worst of times, it was the age of wisdom, "
                + "it was the age of foolishness.";
        for (String text : List.of(longText, "short text.", "  -- ", "...", "x",
                "The 16 tokens: 1 2 3 4 5 6 7 8 9 10 11 12 13 14", "The 17 tokens: 1 2 3 4 5 6 7 8 9 10 11 12 13 14")) {
            String expected = staleFts5(text);
            assertEquals(expected, Snippets.snippet(text, List.of("absent")), text);
        }
        assertEquals("It was the best of times, it was the worst of times, it was the age…",
                Snippets.snippet(longText, List.of("absent")));
        assertEquals("", Snippets.snippet(null, List.of("x")));
        assertEquals("", Snippets.snippet("", List.of("x")));
    }

    /**
     * Every code point from U+0001 (but the surrogates) as unicode61 sees it: between two {@code a} (one token,
     * folded, or two {@code a} tokens when it separates) and, in the BMP where the accents are, alone before a
     * marker token (whether it starts a token).
     */
    @Test
    void characterTablesAreSqlites() throws SQLException {
        int perRow = 2000;
        List<String> rows = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        StringBuilder tokens = new StringBuilder();
        for (int pass = 0; pass < 2; pass++) {
            int last = pass == 0 ? Character.MAX_CODE_POINT : 0xFFFF;
            int inRow = 0;
            for (int cp = 1; cp <= last; cp++) {
                if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                    continue;
                }
                byte kind = Snippets.Unicode61.kind(cp);
                int fold = Snippets.Unicode61.fold(cp);
                if (pass == 0) {
                    text.append('a').appendCodePoint(cp).append("a ");
                    if (kind == Snippets.Unicode61.SEPARATOR) {
                        tokens.append("a a ");
                    } else if (fold == 0) {
                        tokens.append("aa ");
                    } else {
                        tokens.append('a').appendCodePoint(fold).append("a ");
                    }
                } else {
                    text.appendCodePoint(cp).append(" q ");
                    if (kind == Snippets.Unicode61.TOKEN) {
                        tokens.appendCodePoint(fold).append(' ');
                    }
                    tokens.append("q ");
                }
                if (++inRow == perRow || cp == last) {
                    rows.add(text.toString());
                    expected.add(tokens.toString().trim());
                    text.setLength(0);
                    tokens.setLength(0);
                    inRow = 0;
                }
            }
        }
        List<String> actual = new ArrayList<>();
        db.setAutoCommit(false);
        try (Statement s = db.createStatement();
                PreparedStatement ins = db.prepareStatement("INSERT INTO tbl(rowid, text) VALUES (?, ?)")) {
            s.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(tbl, 'instance')");
            for (int i = 0; i < rows.size(); i++) {
                ins.setLong(1, i);
                ins.setString(2, rows.get(i));
                ins.addBatch();
                actual.add("");
            }
            ins.executeBatch();
            try (ResultSet r = s.executeQuery("SELECT doc, group_concat(term, ' ' ORDER BY offset) FROM vocab "
                    + "GROUP BY doc")) {
                while (r.next()) {
                    actual.set(r.getInt(1), r.getString(2));
                }
            }
        } finally {
            db.rollback();
            db.setAutoCommit(true);
        }
        for (int i = 0; i < rows.size(); i++) {
            String e = expected.get(i);
            String a = actual.get(i);
            if (!e.equals(a)) {
                int k = 0;
                while (k < Math.min(e.length(), a.length()) && e.charAt(k) == a.charAt(k)) {
                    k++;
                }
                int from = Math.max(0, e.lastIndexOf(' ', Math.max(0, k - 1)));
                String at = "row " + i + ": expected ..." + e.substring(from, Math.min(e.length(), k + 20))
                        + " but SQLite gives ..." + a.substring(from, Math.min(a.length(), k + 20));
                assertEquals(e, a, at);
            }
        }
    }

    // ---------------------------------------------------------------- random cases

    private static final String[] PLAIN = {"alpha", "beta", "gamma", "delta", "error", "build", "test", "java",
        "maven", "sqlite", "index", "search", "snippet", "window", "token", "the", "a", "of", "and", "to", "is",
        "in", "it", "we", "run", "file", "line", "value", "null", "true", "x", "I"};
    private static final String[] SPECIAL = {"café", "naïve", "résumé", "Ærø", "über", "São", "jalapeño", "façade",
        "Ångström", "crème", "brûlée", "cafe\u0301", "nai\u0308ve", "c\u0327a", "e\u0336x", "ǅemal", "straße",
        "ſtop", "σοφός", "ΛΌΓΟΣ", "λόγος", "привет", "Мир", "йогурт", "ЁЛКА", "日本語", "中文字", "テキスト", "한국어",
        "عربي", "עברית", "हिन्दी", "ภาษาไทย", "ＡＢＣ", "ｆｕｌｌ", "42", "3.14", "2024-06-01", "v1.2.3", "0x1F",
        "½", "²", "Ⅻ", "foo_bar", "snake_case_name", "__init__", "my_var2", "_", "🥰", "😀", "👍🏽", "a🥰b",
        "x\uE000y", "İstanbul", "ǈ", "ﬁle", "Ⓐ", "µs", "ªb", "ǲ"};
    private static final String[] TINY = {"a", "b", "c", "a", "b", "A", "B"};
    private static final String[] SEPARATORS = {" ", " ", " ", " ", " ", " ", "  ", ", ", ". ", ": ", ".\n",
        "\n", "\n\n", "\t", " - ", " (", ") ", "! ", "? ", "... ", " :", ".:", "/", " — ", "«", "» ", "'", "\"",
        ".", ":", "-", "_", ";", " . ", "\r\n", " * ", "#"};

    private static String randomText(Random rnd, List<String> words) {
        int n = switch (rnd.nextInt(4)) {
            case 0 -> 1 + rnd.nextInt(8);
            case 1 -> 10 + rnd.nextInt(20);
            case 2 -> 25 + rnd.nextInt(60);
            default -> 1 + rnd.nextInt(300);
        };
        StringBuilder sb = new StringBuilder();
        if (rnd.nextInt(4) == 0) {
            sb.append(SEPARATORS[rnd.nextInt(SEPARATORS.length)]);
        }
        int special = rnd.nextInt(4);
        // a few letters only: many instances, overlapping phrases
        boolean tiny = rnd.nextInt(5) == 0;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(SEPARATORS[rnd.nextInt(SEPARATORS.length)]);
            }
            String w;
            if (tiny) {
                w = TINY[rnd.nextInt(TINY.length)];
            } else if (rnd.nextInt(10) < special) {
                w = SPECIAL[rnd.nextInt(SPECIAL.length)];
            } else {
                w = PLAIN[rnd.nextInt(PLAIN.length)];
                w = switch (rnd.nextInt(8)) {
                    case 0 -> w.toUpperCase(Locale.ROOT);
                    case 1 -> Character.toUpperCase(w.charAt(0)) + w.substring(1);
                    default -> w;
                };
            }
            words.add(w);
            sb.append(w);
        }
        if (rnd.nextBoolean()) {
            sb.append(SEPARATORS[rnd.nextInt(SEPARATORS.length)]);
        }
        String text = sb.toString();
        if (rnd.nextInt(3) == 0) {
            // a word that occurs once, anywhere (often at the start or the end)
            String once = "zyzzyva" + rnd.nextInt(100);
            int at = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> text.length();
                default -> rnd.nextInt(text.length() + 1);
            };
            while (at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))) {
                at--;
            }
            text = text.substring(0, at) + " " + once + " " + text.substring(at);
            words.add(once);
        }
        return text;
    }

    /**
     * One to four words from the text (or runs of two or three of its words joined by {@code _}: a phrase), split
     * and lower-cased like {@link HistoryIndex#search}.
     */
    private static List<String> randomQuery(Random rnd, List<String> textWords) {
        List<String> out = new ArrayList<>();
        int n = 1 + rnd.nextInt(rnd.nextInt(5) == 0 ? 4 : 2);
        for (int i = 0; i < n || out.isEmpty() && i < 20; i++) {
            int at = rnd.nextInt(textWords.size());
            String from = textWords.get(at);
            if (rnd.nextInt(4) == 0) {
                int more = 1 + rnd.nextInt(2);
                for (int k = 1; k <= more && at + k < textWords.size(); k++) {
                    from += "_" + textWords.get(at + k);
                }
            }
            if (i == 0 && textWords.getLast().startsWith("zyzzyva") && rnd.nextBoolean()) {
                from = textWords.getLast();
            }
            Matcher m = WORD.matcher(from.toLowerCase(Locale.ROOT));
            while (m.find()) {
                out.add(m.group());
            }
        }
        if (out.isEmpty()) {
            out.add("x");
        }
        if (rnd.nextInt(20) == 0) {
            out.add(out.get(0));
        }
        return out;
    }

    // ---------------------------------------------------------------- FTS5

    /** FTS5's snippet for each text and query; null where the query matches no row. */
    private List<String> fts5(List<String> texts, List<List<String>> queries) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = db.createStatement();
                PreparedStatement ins = db.prepareStatement("INSERT INTO tbl(rowid, text) VALUES (?, ?)");
                PreparedStatement q = db.prepareStatement("SELECT snippet(tbl, 0, '«', '»', '…', 16) FROM tbl "
                        + "WHERE tbl MATCH ? AND rowid = ?")) {
            s.execute("DELETE FROM tbl");
            db.setAutoCommit(false);
            for (int i = 0; i < texts.size(); i++) {
                ins.setLong(1, i + 1);
                ins.setString(2, texts.get(i));
                ins.addBatch();
            }
            ins.executeBatch();
            db.commit();
            db.setAutoCommit(true);
            for (int i = 0; i < texts.size(); i++) {
                q.setString(1, String.join(" ", queries.get(i).stream().map(w -> "\"" + w + "\"").toList()));
                q.setLong(2, i + 1);
                try (ResultSet r = q.executeQuery()) {
                    out.add(r.next() ? r.getString(1) : null);
                }
            }
        }
        return out;
    }

    /** FTS5's snippet of a text where the query matches another column: no instance in the text. */
    private String staleFts5(String text) throws SQLException {
        try (Statement s = db.createStatement();
                PreparedStatement ins = db.prepareStatement("INSERT INTO stale(rowid, text, tag) VALUES (1, ?, "
                        + "'zzstale')");
                PreparedStatement q = db.prepareStatement("SELECT snippet(stale, 0, '«', '»', '…', 16) FROM stale "
                        + "WHERE stale MATCH 'tag : zzstale'")) {
            s.execute("DELETE FROM stale");
            ins.setString(1, text);
            ins.executeUpdate();
            try (ResultSet r = q.executeQuery()) {
                assertTrue(r.next());
                return r.getString(1);
            }
        }
    }

    private static String show(String s) {
        return s == null ? "null" : "[" + s.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "]";
    }
}
