package org.agentworkspace.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The built UI as it is packaged: every file listed in {@code META-INF/aw-web/files.txt} (written by the build), read
 * once. Empty when the UI was not built ({@code -Dskip.web}).
 */
public final class WebAssets {
    /** Where the assets lie in this module's jar. */
    public static final String ROOT = "META-INF/aw-web/";
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*");

    private WebAssets() {
    }

    /**
     * Every packaged file by its path relative to the root ({@code index.html}, {@code assets/index-1a2b3c.js}),
     * in the order the build listed them. Paths that are not plain relative names are skipped.
     */
    public static Map<String, byte[]> load() {
        Map<String, byte[]> files = new LinkedHashMap<>();
        byte[] list = read("files.txt");
        if (list == null) {
            return files;
        }
        for (String line : new String(list, StandardCharsets.UTF_8).split("\n")) {
            String path = line.strip();
            if (path.isEmpty() || !SAFE.matcher(path).matches() || path.contains("..")) {
                continue;
            }
            byte[] body = read(path);
            if (body != null) {
                files.put(path, body);
            }
        }
        return files;
    }

    private static byte[] read(String path) {
        try (InputStream in = WebAssets.class.getModule().getResourceAsStream(ROOT + path)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the packaged UI file " + path, e);
        }
    }
}
