package org.agentworkspace.core.history;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The directory layout shared by gemini and qwen's older chats: {@code ~/.<cli>/tmp/<folder>/chats/<file>} where
 * {@code <folder>} is the project's basename (gemini 0.61) or {@code sha256(projectPath)} (older), with the
 * absolute project path in {@code ~/.<cli>/tmp/<folder>/.project_root} and a {@code projects.json} map
 * {@code {"projects": {"/abs/path": "<folder>"}}}.
 */
final class GeminiLayout {
    private static final int MAX_SMALL_FILE = 1024 * 1024;

    private GeminiLayout() {
    }

    /** The chat files ({@code *.json}, {@code *.jsonl}) of every {@code tmp/<folder>/chats/}. */
    static List<Path> chatFiles(Path cliDir) throws IOException {
        List<Path> out = new ArrayList<>();
        Path tmp = cliDir.resolve("tmp");
        if (!Files.isDirectory(tmp)) {
            return out;
        }
        try (DirectoryStream<Path> folders = Files.newDirectoryStream(tmp, Files::isDirectory)) {
            for (Path folder : folders) {
                Path chats = folder.resolve("chats");
                if (!Files.isDirectory(chats)) {
                    continue;
                }
                // by name only: the reader's describe stats each file once
                try (DirectoryStream<Path> files = Files.newDirectoryStream(chats, GeminiLayout::hasChatName)) {
                    files.forEach(out::add);
                }
            }
        }
        return out;
    }

    static boolean isChatFile(Path p) {
        return hasChatName(p) && Files.isRegularFile(p);
    }

    static boolean hasChatName(Path p) {
        String n = p.getFileName().toString();
        return n.endsWith(".json") || n.endsWith(".jsonl");
    }

    /** Whether {@code file} is {@code <cliDir>/tmp/<folder>/chats/<file>}. */
    static boolean inLayout(Path cliDir, Path file) {
        Path tmp = cliDir.resolve("tmp");
        return file.startsWith(tmp) && tmp.relativize(file).getNameCount() == 3
                && "chats".equals(file.getParent().getFileName().toString());
    }

    /**
     * The project of a chat file: {@code .project_root} of its folder, else the {@code projects.json} entry naming
     * the folder, else the {@code projects.json} path whose sha256 is the folder name; null when none matches.
     */
    static String projectOf(Path cliDir, Path chatFile) {
        Path folder = chatFile.getParent().getParent();
        Path marker = folder.resolve(".project_root");
        try {
            if (Files.isRegularFile(marker) && Files.size(marker) < MAX_SMALL_FILE) {
                String p = Files.readString(marker, StandardCharsets.UTF_8).strip();
                if (!p.isEmpty()) {
                    return p;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through to projects.json
        }
        String name = folder.getFileName().toString();
        Path projects = cliDir.resolve("projects.json");
        try {
            if (Files.isRegularFile(projects) && Files.size(projects) < 16L * MAX_SMALL_FILE) {
                JsonNode map = Json.MAPPER.readTree(projects.toFile()).path("projects");
                for (Map.Entry<String, JsonNode> e : map.properties()) {
                    if (name.equals(e.getValue().asText()) || name.equals(sha256(e.getKey()))) {
                        return e.getKey();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown project
        }
        return null;
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code sessionId} of a chat: the first line's (JSONL) or the document's top-level field (JSON). */
    static String sessionIdOf(Path file) {
        try (InputStream in = Files.newInputStream(file); JsonParser p = Json.FACTORY.createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if ("sessionId".equals(field) && p.currentToken() == JsonToken.VALUE_STRING) {
                    return p.getText();
                }
                p.skipChildren();
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
