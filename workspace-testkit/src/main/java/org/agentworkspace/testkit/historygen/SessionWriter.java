package org.agentworkspace.testkit.historygen;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;

/**
 * Writes one generated session in one CLI's format. Subclasses write the records of a turn; this class holds the
 * clock, the counters and the buffered output. A session ends after the turn in which its byte budget was reached.
 */
abstract class SessionWriter {
    static final String ABSENT_MARKER = Vocabulary.ABSENT;

    final SplittableRandom r;
    final HistoryGenerator.Plan plan;
    final String project;
    final String sessionId;
    final StringBuilder line = new StringBuilder(1 << 16);
    final StringBuilder text = new StringBuilder(1 << 16);
    long clock;
    long lines;
    long bytes;
    int messages;
    String firstPrompt;
    private Writer out;
    private long ids;

    SessionWriter(HistoryGenerator.Plan plan, String project) {
        this.plan = plan;
        this.project = project;
        this.r = new SplittableRandom(plan.seed());
        this.clock = plan.startMillis();
        this.sessionId = sessionIdFor();
    }

    /** The session id (called once, from the constructor). */
    String sessionIdFor() {
        return uuid(false);
    }

    /** The session file, relative to HOME. */
    abstract String relativeFile();

    /** Records written once at the start. */
    abstract void begin() throws IOException;

    /** One turn: a prompt, then {@code steps} model responses (all but the last end in a tool call). */
    abstract void turn(String prompt, int turnIndex, int steps) throws IOException;

    /** Records written once at the end (titles). */
    void end() throws IOException {
    }

    /** The title the CLI recorded for this session, or null. */
    String title() {
        return plan.title();
    }

    final HistoryGenerator.Written write(Path home) throws IOException {
        Path file = home.resolve(relativeFile());
        Files.createDirectories(file.getParent());
        try (OutputStream os = Files.newOutputStream(file)) {
            out = new java.io.OutputStreamWriter(os, StandardCharsets.US_ASCII);
            out = new java.io.BufferedWriter(out, 1 << 18);
            begin();
            int turn = 0;
            do {
                String prompt = prompt(turn);
                if (turn == 0) {
                    firstPrompt = prompt;
                }
                int steps = 1 + (r.nextInt(3) == 0 ? 0 : r.nextInt(plan.bigOutputs() ? 6 : 4));
                turn(prompt, turn, steps);
                turn++;
                clock += 30_000 + r.nextInt(20 * 60_000);
            } while (bytes < plan.targetBytes());
            end();
            out.flush();
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(clock));
        return new HistoryGenerator.Written(plan.index(), plan.provider(), sessionId, project, relativeFile(),
                title(), firstPrompt, displayTitle(title(), firstPrompt, sessionId), lines, bytes, messages,
                plan.startMillis(), clock);
    }

    static String displayTitle(String title, String firstPrompt, String id) {
        if (title != null && !title.isBlank()) {
            return title;
        }
        if (firstPrompt != null && !firstPrompt.isBlank()) {
            String oneLine = firstPrompt.strip().replaceAll("\\s+", " ");
            return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 79) + "\u2026";
        }
        return id;
    }

    /** Ends the line in {@link #line}, writes it and clears it. */
    final void emit() throws IOException {
        line.append('\n');
        out.append(line);
        bytes += line.length();
        lines++;
        line.setLength(0);
    }

    final String prompt(int turn) {
        if (turn == 0 && plan.firstPrompt() != null) {
            return plan.firstPrompt();
        }
        StringBuilder sb = new StringBuilder(256);
        Vocabulary.paragraph(r, sb, 1 + r.nextInt(turn == 0 ? 3 : 4));
        if (r.nextInt(5) == 0) {
            sb.append("\n\n");
            Vocabulary.codeBlock(r, sb, 3 + r.nextInt(12));
        }
        return sb.toString();
    }

    /** Assistant prose with an occasional code block, into {@link #text}. */
    final String reply() {
        text.setLength(0);
        Vocabulary.paragraph(r, text, 1 + r.nextInt(5));
        if (r.nextInt(3) == 0) {
            text.append("\n\n");
            Vocabulary.codeBlock(r, text, 4 + r.nextInt(plan.bigOutputs() ? 60 : 25));
            text.append("\n\n");
            Vocabulary.paragraph(r, text, 1 + r.nextInt(2));
        }
        return text.toString();
    }

    final String thought() {
        text.setLength(0);
        Vocabulary.paragraph(r, text, 2 + r.nextInt(5));
        return text.toString();
    }

    /** A tool's output: mostly short, sometimes long, very long in the big sessions. */
    final String toolOutput() {
        text.setLength(0);
        int size;
        int pick = r.nextInt(100);
        if (plan.bigOutputs() && pick < 25) {
            size = 8_000 + r.nextInt(52_000);
        } else if (pick < 12) {
            size = 3_000 + r.nextInt(14_000);
        } else {
            size = 80 + r.nextInt(2_500);
        }
        Vocabulary.toolOutput(r, text, size, project);
        return text.toString();
    }

    final String command() {
        return switch (r.nextInt(5)) {
            case 0 -> "./mvnw -q test -Dtest=" + Vocabulary.identifier(r);
            case 1 -> "grep -rn " + Vocabulary.anyWord(r) + " " + Vocabulary.filePath(r, ".").substring(2, 8);
            case 2 -> "git diff --stat";
            case 3 -> "npm run " + Vocabulary.anyWord(r);
            default -> "ls -la " + Vocabulary.filePath(r, project);
        };
    }

    final void tick() {
        clock += 200 + r.nextInt(40_000);
    }

    final long nextId() {
        return ++ids;
    }

    final String ts() {
        return iso(clock);
    }

    static String iso(long millis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(millis, 1000), 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(24);
        sb.append(t.getYear()).append('-');
        pad(sb, t.getMonthValue(), 2).append('-');
        pad(sb, t.getDayOfMonth(), 2).append('T');
        pad(sb, t.getHour(), 2).append(':');
        pad(sb, t.getMinute(), 2).append(':');
        pad(sb, t.getSecond(), 2).append('.');
        pad(sb, (int) Math.floorMod(millis, 1000), 3).append('Z');
        return sb.toString();
    }

    static StringBuilder pad(StringBuilder sb, int v, int width) {
        String s = Integer.toString(v);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(s);
    }

    /** A random UUID (v4), or time-ordered (v7, as codex uses) from the clock. */
    final String uuid(boolean timeOrdered) {
        long hi = r.nextLong();
        long lo = r.nextLong();
        if (timeOrdered) {
            hi = (clock << 16) | (0x7000L | (hi & 0x0fffL));
        } else {
            hi = (hi & ~0xf000L) | 0x4000L;
        }
        lo = (lo & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new java.util.UUID(hi, lo).toString();
    }

    final String hex(int chars) {
        StringBuilder sb = new StringBuilder(chars);
        while (sb.length() < chars) {
            sb.append(Long.toHexString(r.nextLong() | Long.MIN_VALUE));
        }
        return sb.substring(0, chars);
    }
}
