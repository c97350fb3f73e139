package org.agentworkspace.core.index;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.agentworkspace.core.json.JsonMappers;

/** Removes a session's lines from codex's {@code session_index.jsonl} (rewritten through a temp file + rename). */
final class CodexIndexFile {
    private static final ObjectMapper JSON = JsonMappers.shared();

    private CodexIndexFile() {
    }

    static void remove(Path file, String sessionId) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".aw-tmp");
        boolean removed = false;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (isSession(line, sessionId)) {
                    removed = true;
                    continue;
                }
                out.write(line);
                out.write('\n');
            }
        }
        if (removed) {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } else {
            Files.deleteIfExists(tmp);
        }
    }

    private static boolean isSession(String line, String sessionId) {
        if (!line.contains(sessionId)) {
            return false;
        }
        try {
            JsonNode n = JSON.readTree(line);
            return n != null && sessionId.equals(n.path("id").asText(null));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
