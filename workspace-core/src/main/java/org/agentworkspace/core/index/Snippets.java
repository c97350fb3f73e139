package org.agentworkspace.core.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The text SQLite FTS5 returns for {@code snippet(tbl, 0, '«', '»', '…', 16)} on a {@code unicode61} table when
 * the query is {@code '"w1" "w2" ...'} (an implicit AND of one phrase per word), computed in Java from the text
 * itself so that a contentless FTS5 table (where {@code snippet()} cannot read the text) gives the same snippets.
 *
 * <p>Why not FTS5's own {@code snippet()} (issue #19; docs/benchmarks.md "Hand-copies kept"): it needs the text in
 * the FTS5 table, and the search file is contentless and without positions so that it can be written by a thread
 * of its own beside the store. Moving the full text there took the first full read of the 2 GB benchmark history
 * from 22.6-23.8 s to 18.4-19.3 s (run 13, alternating), and {@code detail=none} from 18.7-19.1 s to 15.1-16.1 s
 * (run 14), against a 15 s target that is met only on the faster machines; computing the 20 shown snippets here also
 * made a common-word search 5 times faster (12.1-12.8 ms to 2.0-2.7 ms p50, run 13).
 *
 * <p>It follows {@code fts5SnippetFunction} in SQLite's {@code ext/fts5/fts5_aux.c} step by step:
 * <ol>
 * <li>Every phrase instance (a word's tokens at consecutive positions) is listed by position, then by the
 * word's index in the query (the order of FTS5's {@code xInst}).</li>
 * <li>For each instance, the window of 16 tokens starting there is scored: 1000 for each distinct phrase in it
 * and 1 for each repeat. Its start is then moved back so that the instances in it are centred, clamped to the
 * text. When the text is longer than 16 tokens, the window starting at the beginning of the sentence holding the
 * instance (the first token, or a token preceded by {@code .} or {@code :} and then at least one space, tab,
 * CR or LF) is scored too, with a bonus of 120 at the start of the text and 100 elsewhere. The first window with
 * the highest score wins; without any instance (text that no longer holds the words) the first 16 tokens are
 * shown.</li>
 * <li>The window is copied as in {@code fts5HighlightCb}: '…' before it unless it starts at the first token
 * (then whatever precedes the first token is kept), the text between its tokens verbatim, each run of
 * overlapping phrase instances wrapped in « », and after it the rest of the text when it reaches the last
 * token, else '…'. An instance that starts before the window is not marked.</li>
 * </ol>
 *
 * <p>Tokens are those of {@code unicode61} with its default options (token characters: the categories
 * {@code L*}, {@code N*}, {@code Co}; a few combining accents continue a token but do not start one; case folded,
 * {@code remove_diacritics=1}). The character classes and the folding are not taken from {@link Character}:
 * SQLite uses its own, older Unicode tables (it treats code points unassigned in them, such as many newer emoji,
 * as token characters; it folds {@code é} to {@code e} but not {@code й} to {@code и}), so {@link Unicode61}
 * holds SQLite's tables, read off SQLite 3.54.1 for every code point ({@code SnippetsTest} checks them against
 * the linked SQLite). Offsets are over UTF-16 here and over UTF-8 in FTS5; token boundaries fall on code points
 * in both, so the copied text is the same.
 *
 * <p>Two oddities are reproduced too: the SQLite driver stores a lone surrogate (not UTF-8) as {@code ?}, and
 * FTS5 builds the snippet from C strings, so each piece of text it copies ends at its first NUL.
 */
final class Snippets {
    /** Tokens per snippet: the last argument of {@code snippet()}. */
    private static final int WINDOW = 16;
    private static final char OPEN = '«';
    private static final char CLOSE = '»';
    private static final char ELLIPSIS = '…';

    private Snippets() {
    }

    /**
     * The snippet of {@code text} for the query words.
     *
     * @param text  the indexed text; null or empty gives ""
     * @param words the query's words (lower case, letters, digits and {@code _}), each one FTS5 phrase
     */
    static String snippet(String text, List<String> words) {
        if (text == null || text.isEmpty()) {
            return "";
        }
        Query query = new Query(words);
        Tokens tokens = Tokens.of(text);
        int nTok = tokens.count;

        // phrase instances in xInst order: by position, then by phrase
        int[] instPos = new int[8];
        int[] instPhrase = new int[8];
        int nInst = 0;
        if (query.distinct.length > 0) {
            int[] ids = new int[nTok];
            for (int k = 0; k < nTok; k++) {
                ids[k] = query.match(tokens.chars, tokens.start[k], tokens.end[k]);
            }
            for (int k = 0; k < nTok; k++) {
                int id = ids[k];
                if (id < 0) {
                    continue;
                }
                for (int p = 0; p < query.phrases.length; p++) {
                    int[] ph = query.phrases[p];
                    if (ph.length == 0 || ph[0] != id || k + ph.length > nTok) {
                        continue;
                    }
                    int j = 1;
                    while (j < ph.length && ids[k + j] == ph[j]) {
                        j++;
                    }
                    if (j == ph.length) {
                        if (nInst == instPos.length) {
                            instPos = Arrays.copyOf(instPos, nInst * 2);
                            instPhrase = Arrays.copyOf(instPhrase, nInst * 2);
                        }
                        instPos[nInst] = k;
                        instPhrase[nInst] = p;
                        nInst++;
                    }
                }
            }
        }

        int best = nInst == 0 ? 0 : bestStart(tokens, query, instPos, instPhrase, nInst);
        // both a lone surrogate and '?' separate tokens: only the copied text differs
        String copied = tokens.loneSurrogate ? withoutLoneSurrogates(text) : text;
        return highlight(copied, tokens, query, instPos, instPhrase, nInst, best);
    }

    private static String withoutLoneSurrogates(String text) {
        StringBuilder sb = new StringBuilder(text);
        for (int i = 0; i < sb.length(); i++) {
            char c = sb.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < sb.length() && Character.isLowSurrogate(sb.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                sb.setCharAt(i, '?');
            }
        }
        return sb.toString();
    }

    /** The first token of the best-scoring window, as {@code fts5SnippetFunction} chooses it. */
    private static int bestStart(Tokens tokens, Query query, int[] instPos, int[] instPhrase, int nInst) {
        int nTok = tokens.count;
        boolean sentences = nTok > WINDOW;
        int[] firsts = sentences ? tokens.sentenceStarts() : null;
        boolean[] seen = new boolean[query.phrases.length];
        int bestScore = 0;
        int bestStart = 0;
        int jj = 0;
        int lo = 0;
        for (int ii = 0; ii < nInst; ii++) {
            int io = instPos[ii];
            while (instPos[lo] < io) {
                lo++;
            }
            // the window [io, io + 16): its score and its start moved to centre the instances in it
            Arrays.fill(seen, false);
            int score = 0;
            int last = 0;
            int end = io + WINDOW;
            for (int i = lo; i < nInst && instPos[i] < end; i++) {
                int p = instPhrase[i];
                score += seen[p] ? 1 : 1000;
                seen[p] = true;
                last = instPos[i] + query.phrases[p].length;
            }
            if (score > bestScore) {
                int adj = io - (WINDOW - (last - io)) / 2;
                if (adj + WINDOW > nTok) {
                    adj = nTok - WINDOW;
                }
                bestScore = score;
                bestStart = Math.max(adj, 0);
            }
            if (sentences) {
                // the last sentence start at or before io
                while (jj < firsts.length - 1 && firsts[jj + 1] <= io) {
                    jj++;
                }
                int from = firsts[jj];
                if (from < io) {
                    Arrays.fill(seen, false);
                    int s = from == 0 ? 120 : 100;
                    int sEnd = from + WINDOW;
                    int i = lowerBound(instPos, nInst, from);
                    for (; i < nInst && instPos[i] < sEnd; i++) {
                        int p = instPhrase[i];
                        s += seen[p] ? 1 : 1000;
                        seen[p] = true;
                    }
                    if (s > bestScore) {
                        bestScore = s;
                        bestStart = from;
                    }
                }
            }
        }
        return bestStart;
    }

    private static int lowerBound(int[] a, int n, int key) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Copies the window of 16 tokens from {@code first} as {@code fts5HighlightCb} does, with the ellipses. */
    private static String highlight(String text, Tokens tokens, Query query, int[] instPos, int[] instPhrase,
            int nInst, int first) {
        int nTok = tokens.count;
        int rangeEnd = first + WINDOW - 1;
        boolean nul = text.indexOf('\0') >= 0;
        StringBuilder out = new StringBuilder(Math.min(text.length(), 256) + 16);
        if (first > 0) {
            out.append(ELLIPSIS);
        }
        // the first run of overlapping instances that starts in the window
        Runs run = new Runs(query, instPos, instPhrase, nInst);
        do {
            run.advance();
        } while (run.start >= 0 && run.start < first);

        int off = 0;
        boolean open = false;
        int last = Math.min(rangeEnd, nTok - 1);
        for (int pos = first; pos <= last; pos++) {
            int ts = tokens.start[pos];
            int te = tokens.end[pos];
            if (first > 0 && pos == first) {
                off = ts;
            }
            if (open && (pos <= run.start || run.start < 0) && ts > off) {
                out.append(CLOSE);
                open = false;
            }
            if (pos == run.start && !open) {
                copy(out, text, off, ts, nul);
                out.append(OPEN);
                off = ts;
                open = true;
            }
            if (pos == run.end) {
                if (!open) {
                    out.append(OPEN);
                    open = true;
                }
                copy(out, text, off, te, nul);
                off = te;
                run.advance();
            }
            if (pos == rangeEnd) {
                if (open) {
                    if (run.start >= 0 && pos >= run.start) {
                        copy(out, text, off, te, nul);
                        off = te;
                    }
                    out.append(CLOSE);
                    open = false;
                }
                copy(out, text, off, te, nul);
                off = te;
            }
        }
        if (open) {
            out.append(CLOSE);
        }
        if (rangeEnd >= nTok - 1) {
            copy(out, text, off, text.length(), nul);
        } else {
            out.append(ELLIPSIS);
        }
        return out.toString();
    }

    /**
     * FTS5's coalesced-instance iterator ({@code fts5CInstIterNext}): the runs of overlapping phrase instances in
     * order, as first and last token; -1 after the last.
     */
    private static final class Runs {
        private final Query query;
        private final int[] instPos;
        private final int[] instPhrase;
        private final int nInst;
        private int next;
        int start = -1;
        int end = -1;

        Runs(Query query, int[] instPos, int[] instPhrase, int nInst) {
            this.query = query;
            this.instPos = instPos;
            this.instPhrase = instPhrase;
            this.nInst = nInst;
        }

        void advance() {
            start = -1;
            end = -1;
            while (next < nInst) {
                int io = instPos[next];
                int ie = io - 1 + query.phrases[instPhrase[next]].length;
                if (start < 0) {
                    start = io;
                    end = ie;
                } else if (io <= end) {
                    end = Math.max(end, ie);
                } else {
                    break;
                }
                next++;
            }
        }
    }

    /** Appends {@code text[from, to)}, or (as FTS5's C strings) only up to its first NUL. */
    private static void copy(StringBuilder out, String text, int from, int to, boolean nul) {
        int end = to;
        if (nul) {
            int z = text.indexOf('\0', from);
            if (z >= 0 && z < to) {
                end = z;
            }
        }
        out.append(text, from, end);
    }

    /**
     * The distinct tokens of the query words as FTS5's unicode61 tokenizer makes them (case and diacritics folded), in
     * order of first appearance: a word such as {@code snake_case} gives two. The search file's index keeps no token
     * positions ({@code detail=none}), so a search matches these tokens anywhere in a message, each one its own term.
     */
    static List<String> terms(List<String> words) {
        List<String> out = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (String word : words) {
            Tokens t = Tokens.of(word);
            for (int k = 0; k < t.count; k++) {
                sb.setLength(0);
                Unicode61.foldInto(t.chars, t.start[k], t.end[k], sb);
                String f = sb.toString();
                if (!f.isEmpty() && !out.contains(f)) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /**
     * Counts, for many texts, how often each of {@code terms} (distinct single folded tokens, as {@link #terms} gives
     * them) occurs: bm25's term frequencies and document length, counted as FTS5's unicode61 tokenizer counts them.
     * The terms are folded once.
     */
    static TermCounter termCounter(List<String> terms) {
        Query query = new Query(terms);
        return (text, counts) -> termCounts(query, terms.size(), text, counts);
    }

    /** See {@link #termCounter}. */
    interface TermCounter {
        /** Fills {@code counts} (one per term, in the order of the terms) and returns the text's number of tokens. */
        int count(String text, int[] counts);
    }

    private static int termCounts(Query query, int terms, String text, int[] counts) {
        Arrays.fill(counts, 0, terms, 0);
        if (text == null || text.isEmpty()) {
            return 0;
        }
        Tokens tokens = Tokens.of(text);
        for (int k = 0; k < tokens.count; k++) {
            int id = query.match(tokens.chars, tokens.start[k], tokens.end[k]);
            if (id >= 0) {
                counts[id]++;
            }
        }
        return tokens.count;
    }

    /** The query: its distinct folded tokens and each word's phrase as indexes into them. */
    private static final class Query {
        /** The distinct tokens, folded, as code points. */
        final int[][] distinct;
        final int[][] phrases;

        Query(List<String> words) {
            List<String> toks = new ArrayList<>();
            phrases = new int[words.size()][];
            StringBuilder sb = new StringBuilder();
            for (int w = 0; w < words.size(); w++) {
                String word = words.get(w);
                Tokens t = Tokens.of(word);
                int[] ph = new int[t.count];
                for (int k = 0; k < t.count; k++) {
                    sb.setLength(0);
                    Unicode61.foldInto(t.chars, t.start[k], t.end[k], sb);
                    String f = sb.toString();
                    int id = toks.indexOf(f);
                    if (id < 0) {
                        id = toks.size();
                        toks.add(f);
                    }
                    ph[k] = id;
                }
                phrases[w] = ph;
            }
            distinct = new int[toks.size()][];
            for (int i = 0; i < distinct.length; i++) {
                distinct[i] = toks.get(i).codePoints().toArray();
            }
        }

        /** The index of the distinct query token equal to the folded text token, or -1. */
        int match(char[] text, int start, int end) {
            int f0 = Unicode61.fold(Character.codePointAt(text, start, end));
            for (int q = 0; q < distinct.length; q++) {
                if (distinct[q][0] == f0 && Unicode61.foldEquals(text, start, end, distinct[q])) {
                    return q;
                }
            }
            return -1;
        }
    }

    /** The tokens of a text: start and end offsets (UTF-16), in order. */
    private static final class Tokens {
        /** The text's characters. */
        final char[] chars;
        int[] start;
        int[] end;
        int count;
        /** Whether the text holds a surrogate that is not half of a pair. */
        boolean loneSurrogate;

        private Tokens(char[] chars, int capacity) {
            this.chars = chars;
            start = new int[capacity];
            end = new int[capacity];
        }

        /** Splits like {@code fts5UnicodeTokenize}. */
        static Tokens of(String s) {
            char[] a = s.toCharArray();
            int n = a.length;
            boolean[] ascii = Unicode61.ASCII_TOKEN;
            Tokens t = new Tokens(a, Math.max(4, n / 5));
            int i = 0;
            while (i < n) {
                // skip separators (combining accents alone do not start a token)
                char c = a[i];
                int ts = i;
                if (c < 128) {
                    if (!ascii[c]) {
                        i++;
                        continue;
                    }
                    i++;
                } else {
                    int cp = Character.codePointAt(a, i, n);
                    if (Unicode61.kind(cp) != Unicode61.TOKEN) {
                        t.loneSurrogate |= cp == c && Character.isSurrogate(c);
                        i += Character.charCount(cp);
                        continue;
                    }
                    i += Character.charCount(cp);
                }
                while (i < n) {
                    c = a[i];
                    if (c < 128) {
                        if (!ascii[c]) {
                            break;
                        }
                        i++;
                    } else {
                        int cp = Character.codePointAt(a, i, n);
                        if (Unicode61.kind(cp) == Unicode61.SEPARATOR) {
                            break;
                        }
                        i += Character.charCount(cp);
                    }
                }
                t.add(ts, i);
            }
            return t;
        }

        private void add(int s, int e) {
            if (count == start.length) {
                start = Arrays.copyOf(start, count * 2);
                end = Arrays.copyOf(end, count * 2);
            }
            start[count] = s;
            end[count] = e;
            count++;
        }

        /**
         * The tokens that start a sentence, as {@code fts5SentenceFinderCb} finds them: the first, and each
         * preceded by {@code .} or {@code :} and then at least one space, tab, CR or LF.
         */
        int[] sentenceStarts() {
            char[] s = chars;
            int[] out = new int[16];
            int n = 1;
            for (int k = 1; k < count; k++) {
                int ts = start[k];
                int i = ts - 1;
                char c = 0;
                while (i >= 0) {
                    c = s[i];
                    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                        break;
                    }
                    i--;
                }
                if (i >= 0 && i != ts - 1 && (c == '.' || c == ':')) {
                    if (n == out.length) {
                        out = Arrays.copyOf(out, n * 2);
                    }
                    out[n++] = k;
                }
            }
            return Arrays.copyOf(out, n);
        }
    }

    /**
     * SQLite's {@code unicode61} character tables (default options), as SQLite 3.54.1 applies them: which code
     * points are token characters, which only continue a token (a few combining accents, dropped by the folding)
     * and what each folds to (lower case, and with {@code remove_diacritics=1} the base letter of a letter with
     * one accent). Read off SQLite by tokenizing {@code a<code point>a} and the code point alone for every code
     * point (through an {@code fts5vocab} table) and run-length encoding the result; {@code SnippetsTest} checks
     * them against the linked SQLite the same way, so a driver upgrade that changes them fails there.
     */
    static final class Unicode61 {
        static final byte SEPARATOR = 0;
        static final byte TOKEN = 1;
        /** Continues a token but does not start one, and folds to nothing. */
        static final byte ACCENT = 2;

        /**
         * The class of every code point from U+0000, as runs: a letter ({@code s} separator, {@code t} token
         * character, {@code m} accent) then the run's length in hex.
         */
        private static final String CLASS_RUNS =
            "s30tas7t1as6t1as2ft1s7t2s1t1s3t2s1t3s1t17s1t1fs1t1cas4tcset5s7t1s1t1s11m5s1m7s2m1s1m1s9m1s7m6s4m2s1m"
            + "2s3et5s1t8s1t5s2t1s1t6es1t8bs8td0s6t29s2t4s1t1s37t2bs2tbs5t1s16t2s2t2bs15tas4t2s1t63s1t1sft2s7tfs2t1"
            + "set1s1t1s1t1es1bt5bsbt3as9t2s4t1cs4t1s9t1s3t1s5t2sft1as3t2s1t85s1bt1s4t36s3t1s12t1s7tas4tas1t10s3t38"
            + "s1t1s7t2s2t2s3t9s1tas2tes2t6s2t5s3t38s1t1s5t4s2t2s3t3s1t1es2t3s1tbs3t38s1t1s8t1s3t1s3t14s2tcs2tfs3t3"
            + "8s1t1s7t2s2t2s3t8s2tas2tcs1t11s1t3bs5t3s3t1s4t9s1t1bs8t6s3t3as7t1s3t1s4t7s2tbs2t1bs1t2s2t38s1t1s7t1s"
            + "3t1s4t7s2tbs2t1es2t3as7t1s3t1s4t9s1tas2t15s1t8s2t46s1t4s6t1s1t1s8t12s3t3cs1t2s7t4s1t7s9tas2t55s1t2s6"
            + "t1s2tbs6t33s1ft14sct31s17t5sbt1s24t1sft1sdt50s14tbs6t6s4t4s3t1s3t2s7t3s4tdsct1s1tas6t5bs1t261sct27sa"
            + "t66s1t26cs2t11s1t1as2t4es3t24s3t1ds5t1bs2t1es2t40s23t1s4t1s1t22sft9as1t76sct4sct4s1t3s2t6as11t7s2t14"
            + "s22t17s5t2s2t35sat1s1dt2s1t20s7t1s6t52s5t2fs11t15s23t3s3t1esdt38set8s4t24s14t3s5t3es2t40s8t8s19t4s1t"
            + "4s3tcbs27t15s4t1bds1t1s3tbs3tds3tds3tds2t1s65t5s6tas5tbs5t11s1at16s21tfs2t1s4t1s2tas1t1s3t5s6t1s1t1s"
            + "1t1s1t4s1tbs2t4s5t5s4t1s1t40s264tcs27t19sbt51s4et16s200t1s75t1es3b9t3sat18bs6t4s3t7s4t1s2t70s1tes1t6"
            + "0s4ft1sct44s1at1s59tcsd6t1asct4s5t3s19t9s7t5s2t5s3t59s4t3s1t5as1t94s2t4sat20s24t1cs1ftbs1et8s1tfs20t"
            + "as27tfs3ft1s100t19c0s40t5690s37t37s2t10ds3t5fs10t20s1t50s8t8s17t9s2t67s2t77s1t3s1t4s1t17s9tas4t3as4t"
            + "8s2t32s11t9s2t10s12t6s3t2bsat17sdtbs1t20s4t2fs1bt10s2t49setcs1t8s2tes4t17s3t1s1t34s1t1s3t2s2t5s2t1s1"
            + "t1cs2tbs7t3s2tecsbt2c12s800t1b1es1tas1t88s10t17cs2tbcs2t2s1at6s7t9s23t1s13t1s4t93s1t1sftas7t1as6t1as"
            + "bt7as7t1s7tas7t100s3t34s9t39s11t6sct34s2et1a1s1t30s1t486s1tc7s1t1fs1tc1s3t1s2t5s4t28s3t4s1t10s9t26s1"
            + "tb9s7t4c0s3t35s16t32s3t2ds12t3es3t24setbs4t3cs3t30set4s4t4e2sdtdb8s4t4adds2et10s4t606dsf6tas27t2sb5t"
            + "22s46tbas57t36as1t19s1t1fs1t19s1t1fs1t19s1t1fs1t19s1t1fs1t19s1t172cs2t10es2ct4s64tcsft2set2sft1sft30"
            + "s1ft1s3ct4s2bt4bs1dtds2bt5s9t7s2taes21tfs6t1s46t3s14tcs25t1s5t15s11tfs3ft1s1t1sb6t1s4t3s3et2s4tcs18t"
            + "93s46t4sbt30s46t3as74tc088ds1t1es60t80sf0t2fe10";

        /**
         * The code points (above ASCII) whose folding differs from themselves, as space-separated runs
         * {@code start,count,step,delta} (hex; the run is start, start+step, ... and each folds to itself plus
         * delta).
         */
        private static final String FOLD_RUNS =
            "b5,1,1,307 c0,1,1,-5f c1,1,1,-60 c2,1,1,-61 c3,1,1,-62 c4,1,1,-63 c5,1,1,-64 c6,1,1,20 c7,1,1,-64 "
            + "c8,1,1,-63 c9,1,1,-64 ca,1,1,-65 cb,1,1,-66 cc,1,1,-63 cd,1,1,-64 ce,1,1,-65 cf,1,1,-66 d0,1,1,20 "
            + "d1,2,1,-63 d3,1,1,-64 d4,1,1,-65 d5,1,1,-66 d6,1,1,-67 d8,1,1,20 d9,1,1,-64 da,1,1,-65 db,1,1,-66 "
            + "dc,1,1,-67 dd,1,1,-64 de,1,1,20 e0,1,1,-7f e1,1,1,-80 e2,1,1,-81 e3,1,1,-82 e4,1,1,-83 e5,2,2,-84 "
            + "e8,1,1,-83 e9,1,1,-84 ea,1,1,-85 eb,1,1,-86 ec,1,1,-83 ed,1,1,-84 ee,1,1,-85 ef,1,1,-86 f1,2,1,-83 "
            + "f3,1,1,-84 f4,1,1,-85 f5,1,1,-86 f6,1,1,-87 f9,1,1,-84 fa,1,1,-85 fb,1,1,-86 fc,1,1,-87 fd,1,1,-84 "
            + "ff,1,1,-86 100,1,1,-9f 101,1,1,-a0 102,1,1,-a1 103,1,1,-a2 104,1,1,-a3 105,1,1,-a4 106,1,1,-a3 "
            + "107,1,1,-a4 108,1,1,-a5 109,1,1,-a6 10a,1,1,-a7 10b,1,1,-a8 10c,1,1,-a9 10d,2,1,-aa 10f,1,1,-ab "
            + "110,1,1,1 112,1,1,-ad 113,1,1,-ae 114,1,1,-af 115,1,1,-b0 116,1,1,-b1 117,1,1,-b2 118,1,1,-b3 "
            + "119,1,1,-b4 11a,1,1,-b5 11b,1,1,-b6 11c,1,1,-b5 11d,1,1,-b6 11e,1,1,-b7 11f,1,1,-b8 120,1,1,-b9 "
            + "121,1,1,-ba 122,1,1,-bb 123,2,1,-bc 125,1,1,-bd 126,1,1,1 128,1,1,-bf 129,1,1,-c0 12a,1,1,-c1 "
            + "12b,1,1,-c2 12c,1,1,-c3 12d,1,1,-c4 12e,1,1,-c5 12f,1,1,-c6 130,1,1,-c7 132,1,1,1 134,1,1,-ca "
            + "135,2,1,-cb 137,1,1,-cc 139,1,1,-cd 13a,1,1,-ce 13b,1,1,-cf 13c,1,1,-d0 13d,1,1,-d1 13e,1,1,-d2 "
            + "13f,2,2,1 143,1,1,-d5 144,1,1,-d6 145,1,1,-d7 146,1,1,-d8 147,1,1,-d9 148,1,1,-da 14a,1,1,1 "
            + "14c,1,1,-dd 14d,1,1,-de 14e,1,1,-df 14f,1,1,-e0 150,1,1,-e1 151,1,1,-e2 152,1,1,1 154,1,1,-e2 "
            + "155,1,1,-e3 156,1,1,-e4 157,1,1,-e5 158,1,1,-e6 159,2,1,-e7 15b,1,1,-e8 15c,1,1,-e9 15d,1,1,-ea "
            + "15e,1,1,-eb 15f,1,1,-ec 160,1,1,-ed 161,2,1,-ee 163,1,1,-ef 164,1,1,-f0 165,1,1,-f1 166,1,1,1 "
            + "168,1,1,-f3 169,1,1,-f4 16a,1,1,-f5 16b,1,1,-f6 16c,1,1,-f7 16d,1,1,-f8 16e,1,1,-f9 16f,1,1,-fa "
            + "170,1,1,-fb 171,1,1,-fc 172,1,1,-fd 173,1,1,-fe 174,1,1,-fd 175,1,1,-fe 176,1,1,-fd 177,1,1,-fe "
            + "178,2,1,-ff 17a,1,1,-100 17b,1,1,-101 17c,1,1,-102 17d,1,1,-103 17e,1,1,-104 17f,1,1,-10c "
            + "181,1,1,d2 182,2,2,1 186,1,1,ce 187,1,1,1 189,2,1,cd 18b,1,1,1 18e,1,1,4f 18f,1,1,ca 190,1,1,cb "
            + "191,1,1,1 193,1,1,cd 194,1,1,cf 196,1,1,d3 197,1,1,d1 198,1,1,1 19c,1,1,d3 19d,1,1,d5 19f,1,1,d6 "
            + "1a0,1,1,-131 1a1,1,1,-132 1a2,2,2,1 1a6,1,1,da 1a7,1,1,1 1a9,1,1,da 1ac,1,1,1 1ae,1,1,da "
            + "1af,1,1,-13a 1b0,1,1,-13b 1b1,2,1,d9 1b3,2,2,1 1b7,1,1,db 1b8,1,1,1 1bc,1,1,1 1c4,1,1,2 1c5,1,1,1 "
            + "1c7,1,1,2 1c8,1,1,1 1ca,1,1,2 1cb,1,1,1 1cd,1,1,-16c 1ce,1,1,-16d 1cf,1,1,-166 1d0,1,1,-167 "
            + "1d1,1,1,-162 1d2,1,1,-163 1d3,1,1,-15e 1d4,1,1,-15f 1d5,4,2,1 1de,4,2,1 1e6,1,1,-17f 1e7,1,1,-180 "
            + "1e8,1,1,-17d 1e9,1,1,-17e 1ea,1,1,-17b 1eb,1,1,-17c 1ec,2,2,1 1f0,1,1,-186 1f1,1,1,2 1f2,1,1,1 "
            + "1f4,1,1,-18d 1f5,1,1,-18e 1f6,1,1,-61 1f7,1,1,-38 1f8,1,1,-18a 1f9,1,1,-18b 1fa,3,2,1 200,1,1,-19f "
            + "201,1,1,-1a0 202,1,1,-1a1 203,1,1,-1a2 204,1,1,-19f 205,1,1,-1a0 206,1,1,-1a1 207,1,1,-1a2 "
            + "208,1,1,-19f 209,1,1,-1a0 20a,1,1,-1a1 20b,1,1,-1a2 20c,1,1,-19d 20d,1,1,-19e 20e,1,1,-19f "
            + "20f,1,1,-1a0 210,1,1,-19e 211,1,1,-19f 212,1,1,-1a0 213,1,1,-1a1 214,1,1,-19f 215,1,1,-1a0 "
            + "216,1,1,-1a1 217,1,1,-1a2 218,1,1,-1a5 219,2,1,-1a6 21b,1,1,-1a7 21c,1,1,1 21e,1,1,-1b6 "
            + "21f,1,1,-1b7 220,1,1,-82 222,2,2,1 226,1,1,-1c5 227,1,1,-1c6 228,1,1,-1c3 229,1,1,-1c4 22a,2,2,1 "
            + "22e,1,1,-1bf 22f,1,1,-1c0 230,1,1,1 232,1,1,-1b9 233,1,1,-1ba 23a,1,1,2a2b 23b,1,1,1 23d,1,1,-a3 "
            + "23e,1,1,2a28 241,1,1,1 243,1,1,-c3 244,1,1,45 245,1,1,47 246,5,2,1 370,2,2,1 376,1,1,1 386,1,1,26 "
            + "388,3,1,25 38c,1,1,40 38e,2,1,3f 391,11,1,20 3a3,9,1,20 3c2,1,1,1 3cf,1,1,8 3d0,1,1,-1e 3d1,1,1,-19 "
            + "3d5,1,1,-f 3d6,1,1,-16 3d8,c,2,1 3f0,1,1,-36 3f1,1,1,-30 3f4,1,1,-3c 3f5,1,1,-40 3f7,1,1,1 "
            + "3f9,1,1,-7 3fa,1,1,1 3fd,3,1,-82 400,10,1,50 410,20,1,20 460,11,2,1 48a,1b,2,1 4c0,1,1,f 4c1,7,2,1 "
            + "4d0,2c,2,1 531,26,1,30 10a0,26,1,1c60 10c7,1,1,1c60 10cd,1,1,1c60 1e00,1,1,-1d9f 1e01,2,1,-1da0 "
            + "1e03,1,1,-1da1 1e04,1,1,-1da2 1e05,1,1,-1da3 1e06,1,1,-1da4 1e07,1,1,-1da5 1e08,1,1,1 "
            + "1e0a,1,1,-1da6 1e0b,1,1,-1da7 1e0c,1,1,-1da8 1e0d,1,1,-1da9 1e0e,1,1,-1daa 1e0f,1,1,-1dab "
            + "1e10,1,1,-1dac 1e11,1,1,-1dad 1e12,1,1,-1dae 1e13,1,1,-1daf 1e14,2,2,1 1e18,1,1,-1db3 "
            + "1e19,1,1,-1db4 1e1a,1,1,-1db5 1e1b,1,1,-1db6 1e1c,1,1,1 1e1e,1,1,-1db8 1e1f,2,1,-1db9 "
            + "1e21,2,1,-1dba 1e23,1,1,-1dbb 1e24,1,1,-1dbc 1e25,1,1,-1dbd 1e26,1,1,-1dbe 1e27,1,1,-1dbf "
            + "1e28,1,1,-1dc0 1e29,1,1,-1dc1 1e2a,1,1,-1dc2 1e2b,2,1,-1dc3 1e2d,1,1,-1dc4 1e2e,1,1,1 "
            + "1e30,1,1,-1dc5 1e31,1,1,-1dc6 1e32,1,1,-1dc7 1e33,1,1,-1dc8 1e34,1,1,-1dc9 1e35,2,1,-1dca "
            + "1e37,1,1,-1dcb 1e38,1,1,1 1e3a,1,1,-1dce 1e3b,1,1,-1dcf 1e3c,1,1,-1dd0 1e3d,2,1,-1dd1 "
            + "1e3f,1,1,-1dd2 1e40,1,1,-1dd3 1e41,1,1,-1dd4 1e42,1,1,-1dd5 1e43,2,1,-1dd6 1e45,1,1,-1dd7 "
            + "1e46,1,1,-1dd8 1e47,1,1,-1dd9 1e48,1,1,-1dda 1e49,1,1,-1ddb 1e4a,1,1,-1ddc 1e4b,1,1,-1ddd "
            + "1e4c,4,2,1 1e54,1,1,-1de4 1e55,1,1,-1de5 1e56,1,1,-1de6 1e57,1,1,-1de7 1e58,1,1,-1de6 "
            + "1e59,1,1,-1de7 1e5a,1,1,-1de8 1e5b,1,1,-1de9 1e5c,1,1,1 1e5e,1,1,-1dec 1e5f,2,1,-1ded "
            + "1e61,1,1,-1dee 1e62,1,1,-1def 1e63,1,1,-1df0 1e64,3,2,1 1e6a,1,1,-1df6 1e6b,1,1,-1df7 "
            + "1e6c,1,1,-1df8 1e6d,1,1,-1df9 1e6e,1,1,-1dfa 1e6f,1,1,-1dfb 1e70,1,1,-1dfc 1e71,2,1,-1dfd "
            + "1e73,1,1,-1dfe 1e74,1,1,-1dff 1e75,1,1,-1e00 1e76,1,1,-1e01 1e77,1,1,-1e02 1e78,2,2,1 "
            + "1e7c,1,1,-1e06 1e7d,1,1,-1e07 1e7e,1,1,-1e08 1e7f,2,1,-1e09 1e81,1,1,-1e0a 1e82,1,1,-1e0b "
            + "1e83,1,1,-1e0c 1e84,1,1,-1e0d 1e85,1,1,-1e0e 1e86,1,1,-1e0f 1e87,1,1,-1e10 1e88,1,1,-1e11 "
            + "1e89,2,1,-1e12 1e8b,1,1,-1e13 1e8c,1,1,-1e14 1e8d,2,1,-1e15 1e8f,2,1,-1e16 1e91,1,1,-1e17 "
            + "1e92,1,1,-1e18 1e93,1,1,-1e19 1e94,1,1,-1e1a 1e95,1,1,-1e1b 1e96,1,1,-1e2e 1e97,1,1,-1e23 "
            + "1e98,1,1,-1e21 1e99,1,1,-1e20 1e9b,1,1,-1e28 1e9e,1,1,-1dbf 1ea0,1,1,-1e3f 1ea1,1,1,-1e40 "
            + "1ea2,1,1,-1e41 1ea3,1,1,-1e42 1ea4,a,2,1 1eb8,1,1,-1e53 1eb9,1,1,-1e54 1eba,1,1,-1e55 "
            + "1ebb,1,1,-1e56 1ebc,1,1,-1e57 1ebd,1,1,-1e58 1ebe,5,2,1 1ec8,1,1,-1e5f 1ec9,1,1,-1e60 "
            + "1eca,1,1,-1e61 1ecb,1,1,-1e62 1ecc,1,1,-1e5d 1ecd,1,1,-1e5e 1ece,1,1,-1e5f 1ecf,1,1,-1e60 "
            + "1ed0,a,2,1 1ee4,1,1,-1e6f 1ee5,1,1,-1e70 1ee6,1,1,-1e71 1ee7,1,1,-1e72 1ee8,5,2,1 1ef2,1,1,-1e79 "
            + "1ef3,1,1,-1e7a 1ef4,1,1,-1e7b 1ef5,1,1,-1e7c 1ef6,1,1,-1e7d 1ef7,1,1,-1e7e 1ef8,1,1,-1e7f "
            + "1ef9,1,1,-1e80 1efa,3,2,1 1f08,8,1,-8 1f18,6,1,-8 1f28,8,1,-8 1f38,8,1,-8 1f48,6,1,-8 1f59,4,2,-8 "
            + "1f68,8,1,-8 1f88,8,1,-8 1f98,8,1,-8 1fa8,8,1,-8 1fb8,2,1,-8 1fba,2,1,-4a 1fbc,1,1,-9 1fbe,1,1,-1c05 "
            + "1fc8,4,1,-56 1fcc,1,1,-9 1fd8,2,1,-8 1fda,2,1,-64 1fe8,2,1,-8 1fea,2,1,-70 1fec,1,1,-7 1ff8,2,1,-80 "
            + "1ffa,2,1,-7e 1ffc,1,1,-9 2126,1,1,-1d5d 212a,1,1,-20bf 212b,1,1,-20ca 2132,1,1,1c 2160,10,1,10 "
            + "2183,1,1,1 2c00,2f,1,30 2c60,1,1,1 2c62,1,1,-29f7 2c63,1,1,-ee6 2c64,1,1,-29e7 2c67,3,2,1 "
            + "2c6d,1,1,-2a1c 2c6e,1,1,-29fd 2c6f,1,1,-2a1f 2c70,1,1,-2a1e 2c72,1,1,1 2c75,1,1,1 2c7e,2,1,-2a3f "
            + "2c80,32,2,1 2ceb,2,2,1 2cf2,1,1,1 a640,17,2,1 a680,c,2,1 a722,7,2,1 a732,1f,2,1 a779,2,2,1 "
            + "a77d,1,1,-8a04 a77e,5,2,1 a78b,1,1,1 a78d,1,1,-a528 a790,2,2,1 a7a0,5,2,1 a7aa,1,1,-a544 "
            + "ff21,1a,1,20 10400,28,1,28";

        static final boolean[] ASCII_TOKEN = new boolean[128];
        private static final byte[] BMP = new byte[0x10000];
        /** Runs above the BMP: first code point and class. */
        private static final int[] SUPP_START;
        private static final byte[] SUPP_KIND;
        private static final int[] FOLD_START;
        private static final int[] FOLD_COUNT;
        private static final int[] FOLD_STEP;
        private static final int[] FOLD_DELTA;

        static {
            List<int[]> supp = new ArrayList<>();
            int cp = 0;
            int i = 0;
            while (i < CLASS_RUNS.length()) {
                char letter = CLASS_RUNS.charAt(i++);
                int len = 0;
                while (i < CLASS_RUNS.length() && isHex(CLASS_RUNS.charAt(i))) {
                    len = len * 16 + Character.digit(CLASS_RUNS.charAt(i++), 16);
                }
                byte kind = letter == 't' ? TOKEN : letter == 'm' ? ACCENT : SEPARATOR;
                int end = cp + len;
                if (cp < 0x10000) {
                    Arrays.fill(BMP, cp, Math.min(end, 0x10000), kind);
                }
                if (end > 0x10000) {
                    supp.add(new int[] {Math.max(cp, 0x10000), kind});
                }
                cp = end;
            }
            if (cp != 0x110000) {
                throw new IllegalStateException("unicode61 class table covers " + Integer.toHexString(cp));
            }
            SUPP_START = new int[supp.size()];
            SUPP_KIND = new byte[supp.size()];
            for (int k = 0; k < supp.size(); k++) {
                SUPP_START[k] = supp.get(k)[0];
                SUPP_KIND[k] = (byte) supp.get(k)[1];
            }
            for (int c = 0; c < 128; c++) {
                ASCII_TOKEN[c] = BMP[c] == TOKEN;
            }
            String[] runs = FOLD_RUNS.split(" ");
            FOLD_START = new int[runs.length];
            FOLD_COUNT = new int[runs.length];
            FOLD_STEP = new int[runs.length];
            FOLD_DELTA = new int[runs.length];
            for (int k = 0; k < runs.length; k++) {
                String[] f = runs[k].split(",");
                FOLD_START[k] = Integer.parseInt(f[0], 16);
                FOLD_COUNT[k] = Integer.parseInt(f[1], 16);
                FOLD_STEP[k] = Integer.parseInt(f[2], 16);
                FOLD_DELTA[k] = Integer.parseInt(f[3], 16);
            }
        }

        private Unicode61() {
        }

        private static boolean isHex(char c) {
            return c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
        }

        /** {@link #SEPARATOR}, {@link #TOKEN} or {@link #ACCENT}. */
        static byte kind(int cp) {
            if (cp < 0x10000) {
                return BMP[cp];
            }
            int lo = 0;
            int hi = SUPP_START.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (SUPP_START[mid] <= cp) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return SUPP_KIND[lo];
        }

        /** The folded code point of a token character; 0 for an accent (dropped). */
        static int fold(int cp) {
            if (cp < 128) {
                return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
            }
            if (kind(cp) == ACCENT) {
                return 0;
            }
            int lo = 0;
            int hi = FOLD_START.length - 1;
            if (cp < FOLD_START[0]) {
                return cp;
            }
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (FOLD_START[mid] <= cp) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            int d = cp - FOLD_START[lo];
            if (d % FOLD_STEP[lo] == 0 && d / FOLD_STEP[lo] < FOLD_COUNT[lo]) {
                return cp + FOLD_DELTA[lo];
            }
            return cp;
        }

        /** Appends the folded form of {@code s[start, end)} (one token). */
        static void foldInto(char[] s, int start, int end, StringBuilder out) {
            for (int i = start; i < end; ) {
                int cp = Character.codePointAt(s, i, end);
                i += Character.charCount(cp);
                int f = fold(cp);
                if (f != 0) {
                    out.appendCodePoint(f);
                }
            }
        }

        /** Whether the folded form of {@code s[start, end)} equals {@code folded}. */
        static boolean foldEquals(char[] s, int start, int end, int[] folded) {
            int j = 0;
            int n = folded.length;
            for (int i = start; i < end; ) {
                char c = s[i];
                int f;
                if (c < 128) {
                    f = c >= 'A' && c <= 'Z' ? c + 32 : c;
                    i++;
                } else {
                    int cp = Character.codePointAt(s, i, end);
                    i += Character.charCount(cp);
                    f = fold(cp);
                    if (f == 0) {
                        continue;
                    }
                }
                if (j >= n || folded[j] != f) {
                    return false;
                }
                j++;
            }
            return j == n;
        }
    }
}
