package org.agentworkspace.testkit.historygen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator is deterministic (same options → byte-identical tree, whatever the thread count; another seed →
 * other bytes), every line it writes is one JSON object, the manifest's totals match the files, and the common
 * words appear while the absent word never does. That the readers understand the files is checked in
 * workspace-core ({@code GeneratedHistoryTest}).
 */
class HistoryGeneratorTest {
    @TempDir
    Path tmp;

    private static HistoryGenerator.Options options(Path out, long seed, int threads) {
        return new HistoryGenerator.Options(out, 6, 90, 3L << 20, seed, threads);
    }

    /** SHA-256 over every file's relative path and bytes, in path order. */
    static String treeHash(Path root) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            md.update(root.relativize(f).toString().getBytes());
            md.update((byte) 0);
            md.update(Files.readAllBytes(f));
        }
        return HexFormat.of().formatHex(md.digest());
    }

    @Test
    void sameSeedSameBytesWhateverTheThreads() throws Exception {
        HistoryGenerator.generate(options(tmp.resolve("a"), 42, 1));
        HistoryGenerator.generate(options(tmp.resolve("b"), 42, 3));
        HistoryGenerator.generate(options(tmp.resolve("c"), 43, 2));
        String a = treeHash(tmp.resolve("a"));
        assertEquals(a, treeHash(tmp.resolve("b")));
        assertNotEquals(a, treeHash(tmp.resolve("c")));
    }

    @Test
    void everyLineIsOneJsonObjectAndTheManifestAddsUp() throws Exception {
        Path out = tmp.resolve("h");
        HistoryGenerator.Result r = HistoryGenerator.generate(options(out, 7, 2));
        ObjectMapper json = new ObjectMapper();
        long lines = 0;
        long bytes = 0;
        boolean common = false;
        List<Path> files;
        try (Stream<Path> s = Files.walk(out)) {
            files = s.filter(p -> p.toString().endsWith(".jsonl") && !p.getFileName().toString().startsWith("aw-")
                    && !p.getFileName().toString().equals("session_index.jsonl")).toList();
        }
        assertEquals(90, files.size());
        for (Path f : files) {
            bytes += Files.size(f);
            for (String l : Files.readAllLines(f)) {
                JsonNode n = json.readTree(l);
                assertTrue(n.isObject(), f + ": " + l);
                assertFalse(l.contains(Vocabulary.ABSENT), "absent word written in " + f);
                common |= l.contains(" " + Vocabulary.COMMON[0] + " ");
                lines++;
            }
        }
        assertTrue(common);
        JsonNode m = json.readTree(r.manifest().toFile());
        assertEquals(lines, m.get("lines").asLong());
        assertEquals(bytes, m.get("bytes").asLong());
        assertEquals(90, m.get("sessions").asInt());
        assertEquals(45, m.path("sessionsByProvider").path("claude").asInt());
        assertEquals(27, m.path("sessionsByProvider").path("codex").asInt());
        assertEquals(18, m.path("sessionsByProvider").path("gemini").asInt());
        assertEquals(Vocabulary.ABSENT, m.get("absentWord").asText());
        for (String p : List.of("claude", "codex", "gemini")) {
            JsonNode sample = m.path("samples").path(p);
            assertTrue(Files.isRegularFile(out.resolve(sample.path("file").asText())), p);
            assertTrue(sample.path("projectPath").asText().startsWith("/"), p);
        }
        // within a factor of two of the target at this small scale (large sessions overshoot a turn)
        assertTrue(bytes > (3L << 20) / 2 && bytes < (3L << 21), "bytes " + bytes);
        assertEquals(90, Files.readAllLines(out.resolve(HistoryGenerator.SESSIONS)).size());
    }

    @Test
    void sizesParse() {
        assertEquals(3L << 30, Main.parseSize("3g"));
        assertEquals(1536L << 10, Main.parseSize("1.5m"));
    }
}
