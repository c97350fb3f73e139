package org.agentworkspace.api.files;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;

/**
 * A project-relative path that passed the lexical rules. Every path a client sends (file API, git file names)
 * becomes one of these first; the engine then resolves it against the real project root.
 *
 * <p>The rules, applied to the string exactly as received (the server decodes a query parameter once; this type
 * never decodes again, so {@code ..%2Fx} is a literal name):
 * <ul>
 *   <li>{@code INVALID_PATH}: {@code null}; longer than {@value #MAX_LENGTH} characters; a NUL or any other
 *       control character (U+0000 to U+001F, U+007F); a backslash anywhere (paths are {@code /}-separated on
 *       every host); a segment longer than {@value #MAX_SEGMENT_BYTES} UTF-8 bytes.</li>
 *   <li>{@code PATH_OUTSIDE_PROJECT}: a leading {@code /} (absolute), or any {@code ..} segment, even one that
 *       would stay inside after normalisation.</li>
 *   <li>Accepted and dropped: empty segments ({@code a//b}, a trailing {@code /}) and {@code .} segments.</li>
 * </ul>
 * An empty result (from {@code ""}, {@code "."} or {@code "./"}) is the project root; operations that need an
 * entry refuse it.
 *
 * @param segments the path's names, none empty, {@code .} or {@code ..}
 */
public record RelativePath(List<String> segments) {
    /** Longest accepted input, in characters. */
    public static final int MAX_LENGTH = 4096;
    /** Longest accepted segment, in UTF-8 bytes (the common file system limit). */
    public static final int MAX_SEGMENT_BYTES = 255;

    private static final RelativePath ROOT = new RelativePath(List.of());

    public RelativePath {
        segments = List.copyOf(segments);
        for (String segment : segments) {
            checkSegment(segment);
        }
    }

    /** The project root. */
    public static RelativePath root() {
        return ROOT;
    }

    /**
     * Parses a client path by the rules above.
     *
     * @throws WorkspaceException.Validation with {@code INVALID_PATH}
     * @throws WorkspaceException.Forbidden with {@code PATH_OUTSIDE_PROJECT}
     */
    public static RelativePath parse(String raw) {
        if (raw == null) {
            throw invalid("a path is required");
        }
        if (raw.length() > MAX_LENGTH) {
            throw invalid("the path is longer than " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid("the path contains a control character");
            }
            if (c == '\\') {
                throw invalid("the path contains a backslash; use / as the separator");
            }
        }
        if (raw.startsWith("/")) {
            throw outside("absolute paths are not accepted; give a path relative to the project");
        }
        List<String> out = new ArrayList<>();
        for (String segment : raw.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                throw outside("'..' is not accepted in a project path");
            }
            out.add(segment);
        }
        return out.isEmpty() ? ROOT : new RelativePath(out);
    }

    private static void checkSegment(String segment) {
        Objects.requireNonNull(segment, "segment");
        if (segment.isEmpty() || segment.equals(".") || segment.indexOf('/') >= 0 || segment.indexOf('\\') >= 0) {
            throw invalid("the path contains an empty or malformed segment");
        }
        if (segment.equals("..")) {
            throw outside("'..' is not accepted in a project path");
        }
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid("the path contains a control character");
            }
        }
        if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
            throw invalid("a path segment is longer than " + MAX_SEGMENT_BYTES + " bytes");
        }
    }

    /** {@code true} for the project root (no segments). */
    public boolean isRoot() {
        return segments.isEmpty();
    }

    /** The last segment; the root has none. */
    public String name() {
        if (isRoot()) {
            throw new IllegalStateException("the project root has no name");
        }
        return segments.getLast();
    }

    /** The parent path; the root's parent is the root. */
    public RelativePath parent() {
        return isRoot() ? ROOT : new RelativePath(segments.subList(0, segments.size() - 1));
    }

    /** This path with one more segment. */
    public RelativePath child(String name) {
        List<String> next = new ArrayList<>(segments);
        next.add(name);
        return new RelativePath(next);
    }

    /** {@code true} when {@code other} equals this path or lies below it. */
    public boolean contains(RelativePath other) {
        return other.segments.size() >= segments.size() && other.segments.subList(0, segments.size()).equals(segments);
    }

    /** The canonical string: segments joined with {@code /}; the root is {@code ""}. */
    public String value() {
        return String.join("/", segments);
    }

    @Override
    public String toString() {
        return value();
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, message);
    }

    private static WorkspaceException outside(String message) {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT, message);
    }
}
