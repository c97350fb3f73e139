package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.agentworkspace.testkit.historygen.HistoryGenerator;
import org.agentworkspace.testkit.realcli.Recordings;

/**
 * Every line of the history the other reader tests read (the real CLIs' recordings: their history files, their
 * stdout streams and meta files; and a few MB of the testkit's synthetic history), parsed by {@link JsonLine} and by
 * the Jackson path with every keep set a reader uses: same verdict, same tree.
 */
class JsonLineCorpusTest {
    @TempDir
    Path tmp;

    private int accepted;
    private int rejected;

    private void agree(String label, byte[] content) {
        List<Set<String>> keeps = JsonAgreement.keepSets();
        for (byte[] line : lines(content)) {
            for (Set<String> keep : keeps) {
                if (JsonAgreement.assertAgree(label, line, keep)) {
                    accepted++;
                } else {
                    rejected++;
                }
            }
        }
        // the whole file as one input too (a pretty-printed document, or several lines: trailing content)
        for (Set<String> keep : keeps) {
            JsonAgreement.assertAgree(label + " (whole file)", content, keep);
        }
    }

    /** The lines of {@code content} without their '\n' (a '\r' stays, as LineReader leaves it). */
    static List<byte[]> lines(byte[] content) {
        List<byte[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= content.length; i++) {
            if (i == content.length || content[i] == '\n') {
                if (i > start) {
                    out.add(Arrays.copyOfRange(content, start, i));
                }
                start = i + 1;
            }
        }
        return out;
    }

    @Test
    void recordingsAgree() {
        int files = 0;
        for (String provider : Recordings.PROVIDERS) {
            for (String scenario : Recordings.SCENARIOS) {
                if (!Recordings.exists(provider, scenario)) {
                    continue;
                }
                List<String> paths = new ArrayList<>(Recordings.historyFiles(provider, scenario));
                paths.add("stream.jsonl");
                paths.add("meta.json");
                for (String rel : paths) {
                    Optional<InputStream> in = Recordings.open(provider, scenario, rel);
                    if (in.isEmpty()) {
                        continue;
                    }
                    try (InputStream s = in.get()) {
                        agree(provider + "/" + scenario + "/" + rel, s.readAllBytes());
                        files++;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
        assertTrue(files >= 40, files + " recorded files");
        assertTrue(accepted > 2000, accepted + " lines accepted");
    }

    /** The per-thread parsers share nothing: four threads at once give each line the tree Jackson gives. */
    @Test
    void threadsParseIndependently() throws Exception {
        List<byte[]> lines = new ArrayList<>();
        for (String scenario : List.of("plain", "tool-write")) {
            for (String rel : Recordings.historyFiles("claude", scenario)) {
                try (InputStream s = Recordings.open("claude", scenario, rel).orElseThrow()) {
                    lines.addAll(lines(s.readAllBytes()));
                }
            }
        }
        Set<String> keep = new ClaudeHistoryReader().fields();
        List<String> want = new ArrayList<>();
        for (byte[] line : lines) {
            want.add(JsonAgreement.render(Json.parseObjectJackson(line, 0, line.length, keep)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<String>>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int shift = t;
                runs.add(pool.submit(() -> {
                    List<String> got = new ArrayList<>(Collections.nCopies(lines.size(), (String) null));
                    for (int round = 0; round < 20; round++) {
                        for (int j = 0; j < lines.size(); j++) {
                            int i = (j + shift * 7 + round) % lines.size();
                            byte[] line = lines.get(i);
                            got.set(i, JsonAgreement.render(Json.parseObject(line, 0, line.length, keep)));
                        }
                    }
                    return got;
                }));
            }
            for (Future<List<String>> run : runs) {
                assertEquals(want, run.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void generatedHistoryAgrees() throws Exception {
        Path home = tmp.resolve("home");
        HistoryGenerator.generate(new HistoryGenerator.Options(home, 3, 40, 3L << 20, 23, 1));
        List<Path> files;
        try (Stream<Path> walk = Files.walk(home)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".jsonl") || p.toString().endsWith(".json"))
                    .sorted().toList();
        }
        for (Path f : files) {
            agree(home.relativize(f).toString(), Files.readAllBytes(f));
        }
        assertTrue(files.size() >= 40, files.size() + " generated files");
        assertTrue(accepted > 5000, accepted + " lines accepted, " + rejected + " rejected");
    }
}
