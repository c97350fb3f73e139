package org.agentworkspace.core.history;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.testkit.historygen.HistoryGenerator;
import org.agentworkspace.testkit.realcli.Recordings;

/**
 * A rough single-threaded measurement, not a test: the cost per byte of {@link Json#parseObjectJackson} and of
 * {@link JsonLine} (through {@link Json#parseObject}) over JSONL history held in memory, each line with its reader's
 * keep set, after a warm-up. Two corpora: the testkit's synthetic history (ASCII, dense escapes) and the real CLI
 * recordings repeated to the same size (mostly non-ASCII text). Prints time and allocation per byte; asserts
 * nothing. Arguments: the folder to generate into (reused when it has files), the size in MB (default 40), the
 * rounds (default 5).
 *
 * <p>Run from workspace-core after {@code test-compile}:
 * {@code java -cp target/classes:target/test-classes:<test classpath>
 * org.agentworkspace.core.history.JsonLineSpeed /tmp/jsonl-speed 40}
 */
public final class JsonLineSpeed {
    private JsonLineSpeed() {
    }

    private interface Parser {
        ObjectNode parse(byte[] b, int off, int len, Set<String> keep) throws Exception;
    }

    /** One file's bytes, its line starts and ends, and its reader's keep set. */
    private record Corpus(byte[] bytes, int[] starts, int[] ends, Set<String> keep) {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/jsonl-speed");
        long mb = args.length > 1 ? Long.parseLong(args[1]) : 40;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        if (!Files.isDirectory(dir.resolve(".claude"))) {
            HistoryGenerator.generate(new HistoryGenerator.Options(dir, 4, Math.max(20, (int) mb * 4), mb << 20, 7, 1));
        }
        List<Corpus> generated = load(dir);
        measure("generated", generated, rounds);
        measure("recorded", recorded(generated.stream().mapToLong(c -> c.bytes().length).sum()), rounds);
    }

    private static void measure(String label, List<Corpus> corpus, int rounds) throws Exception {
        long bytes = corpus.stream().mapToLong(c -> c.bytes().length).sum();
        long lines = corpus.stream().mapToLong(c -> c.starts().length).sum();
        System.out.printf("%s corpus: %d files, %d lines, %.1f MB%n", label, corpus.size(), lines, bytes / 1e6);

        Parser jackson = Json::parseObjectJackson;
        Parser fast = Json::parseObject;
        for (int warm = 0; warm < 3; warm++) {
            run(corpus, jackson);
            run(corpus, fast);
        }
        // com.sun.management.ThreadMXBean, by reflection: the module does not read jdk.management
        Object threads = ManagementFactory.getThreadMXBean();
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        for (String name : new String[] {"jackson", "jsonline", "jackson", "jsonline"}) {
            Parser p = name.equals("jackson") ? jackson : fast;
            long best = Long.MAX_VALUE;
            long total = 0;
            long alloc = 0;
            for (int r = 0; r < rounds; r++) {
                long a0 = (long) allocated.invoke(threads);
                long t0 = System.nanoTime();
                run(corpus, p);
                long t = System.nanoTime() - t0;
                alloc += (long) allocated.invoke(threads) - a0;
                best = Math.min(best, t);
                total += t;
            }
            System.out.printf("%-8s best %6.2f ns/byte (%5.0f MB/s), mean %6.2f ns/byte, allocated %5.2f bytes/byte%n",
                    name, (double) best / bytes, bytes / (best / 1e9) / 1e6, (double) total / rounds / bytes,
                    (double) alloc / rounds / bytes);
        }
    }

    private static long sink;

    private static void run(List<Corpus> corpus, Parser p) throws Exception {
        long h = 0;
        for (Corpus c : corpus) {
            for (int i = 0; i < c.starts().length; i++) {
                ObjectNode n = p.parse(c.bytes(), c.starts()[i], c.ends()[i] - c.starts()[i], c.keep());
                h += n.size();
            }
        }
        sink += h;
    }

    /** The recorded history files of the JSONL readers, repeated until they hold about {@code size} bytes. */
    private static List<Corpus> recorded(long size) throws Exception {
        List<Corpus> once = new ArrayList<>();
        for (String provider : List.of("claude", "codex", "gemini", "qwen")) {
            Set<String> keep = ((JsonlHistoryReader) HistoryReaders.create().get(provider)).fields();
            for (String scenario : Recordings.SCENARIOS) {
                if (!Recordings.exists(provider, scenario)) {
                    continue;
                }
                for (String rel : Recordings.historyFiles(provider, scenario)) {
                    if (rel.endsWith(".jsonl")) {
                        try (InputStream in = Recordings.open(provider, scenario, rel).orElseThrow()) {
                            once.add(corpus(in.readAllBytes(), keep));
                        }
                    }
                }
            }
        }
        long each = once.stream().mapToLong(c -> c.bytes().length).sum();
        List<Corpus> out = new ArrayList<>();
        for (long n = 0; n < size; n += each) {
            for (Corpus c : once) {
                out.add(new Corpus(c.bytes().clone(), c.starts(), c.ends(), c.keep()));
            }
        }
        return out;
    }

    private static List<Corpus> load(Path dir) throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".jsonl"))
                    .filter(f -> !f.getFileName().toString().startsWith("aw-historygen")).sorted().toList();
        }
        List<Corpus> out = new ArrayList<>();
        for (Path f : files) {
            String s = f.toString();
            Set<String> keep = s.contains("/.claude/") ? new ClaudeHistoryReader().fields()
                    : s.contains("/.codex/") ? new CodexHistoryReader().fields() : new GeminiHistoryReader().fields();
            out.add(corpus(Files.readAllBytes(f), keep));
        }
        return out;
    }

    private static Corpus corpus(byte[] b, Set<String> keep) {
        List<int[]> spans = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '\n') {
                if (i > start) {
                    spans.add(new int[] {start, i});
                }
                start = i + 1;
            }
        }
        int[] starts = spans.stream().mapToInt(x -> x[0]).toArray();
        int[] ends = spans.stream().mapToInt(x -> x[1]).toArray();
        return new Corpus(b, starts, ends, keep);
    }
}
