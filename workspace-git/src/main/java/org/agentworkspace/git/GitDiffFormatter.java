package org.agentworkspace.git;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.eclipse.jgit.diff.DiffDriver;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.patch.FileHeader;

/**
 * JGit's diff formatter, brought in line with what {@code git diff} prints in two places where JGit differs:
 * <ul>
 *   <li>Hunk headers carry git's default function context: the nearest line above the hunk (in the old file) that
 *       starts with an ASCII letter, {@code _} or {@code $}, cut to 80 bytes and stripped of trailing white space.
 *       When {@code .gitattributes} names one of JGit's built-in diff drivers, its patterns are used instead.</li>
 *   <li>A binary change is {@code Binary files a/x and b/x differ} (with {@code /dev/null} for a missing side) and
 *       has no {@code ---}/{@code +++} lines.</li>
 *   <li>A {@code ---} or {@code +++} line whose name holds a space ends with a tab, as git writes it (so that
 *       {@code patch} can tell where the name ends).</li>
 * </ul>
 */
final class GitDiffFormatter extends DiffFormatter {
    private static final int FUNC_NAME_MAX = 80;

    private RawText oldText;
    private int searchedDownTo;
    private byte[] lastFuncName;

    GitDiffFormatter(OutputStream out) {
        super(out);
    }

    @Override
    public void format(FileHeader head, RawText a, RawText b, DiffDriver driver) throws IOException {
        if (head.getPatchType() == FileHeader.PatchType.BINARY) {
            writeBinaryHeader(head);
            return;
        }
        oldText = a;
        searchedDownTo = -1;
        lastFuncName = null;
        super.format(withTabbedNames(head), a, b, driver);
    }

    /** The header with git's trailing tab on {@code ---}/{@code +++} lines whose name holds a space. */
    private static FileHeader withTabbedNames(FileHeader head) {
        int start = head.getStartOffset();
        int end = head.getHunks().isEmpty() ? head.getEndOffset() : head.getHunks().getFirst().getStartOffset();
        String header = new String(head.getBuffer(), start, end - start, StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder(header.length() + 2);
        boolean changed = false;
        for (String line : header.split("(?<=\n)")) {
            boolean label = line.startsWith("--- ") || line.startsWith("+++ ");
            if (label && line.endsWith("\n") && line.indexOf(' ', 4) >= 0) {
                out.append(line, 0, line.length() - 1).append("\t\n");
                changed = true;
            } else {
                out.append(line);
            }
        }
        if (!changed) {
            return head;
        }
        return new FileHeader(out.toString().getBytes(StandardCharsets.ISO_8859_1), head.toEditList(),
                head.getPatchType());
    }

    private void writeBinaryHeader(FileHeader head) throws IOException {
        String header = new String(head.getBuffer(), head.getStartOffset(),
                head.getEndOffset() - head.getStartOffset(), StandardCharsets.ISO_8859_1);
        String oldName = null;
        String newName = null;
        StringBuilder kept = new StringBuilder();
        for (String line : header.split("\n")) {
            if (line.startsWith("--- ")) {
                oldName = line.substring(4);
            } else if (line.startsWith("+++ ")) {
                newName = line.substring(4);
            } else if (line.startsWith("Binary files")) {
                continue;
            } else {
                kept.append(line).append('\n');
            }
        }
        if (oldName != null && newName != null) {
            kept.append("Binary files ").append(oldName).append(" and ").append(newName).append(" differ\n");
        }
        getOutputStream().write(kept.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    @Override
    protected void writeHunkHeader(int aStartLine, int aEndLine, int bStartLine, int bEndLine, String funcName)
            throws IOException {
        OutputStream out = getOutputStream();
        out.write(new byte[] {'@', '@', ' '});
        writeRange('-', aStartLine + 1, aEndLine - aStartLine);
        out.write(' ');
        writeRange('+', bStartLine + 1, bEndLine - bStartLine);
        out.write(new byte[] {' ', '@', '@'});
        byte[] name = funcName != null ? funcName.getBytes(StandardCharsets.UTF_8) : defaultFuncName(aStartLine);
        if (name != null && name.length > 0) {
            out.write(' ');
            out.write(name);
        }
        out.write('\n');
    }

    private void writeRange(char prefix, int begin, int count) throws IOException {
        OutputStream out = getOutputStream();
        out.write(prefix);
        String text = switch (count) {
            case 0 -> (begin - 1) + ",0";
            case 1 -> Integer.toString(begin);
            default -> begin + "," + count;
        };
        out.write(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Searches only the lines not searched for the previous hunk, like git's xdiff does. */
    private byte[] defaultFuncName(int aStartLine) {
        if (oldText == null) {
            return null;
        }
        int limit = searchedDownTo;
        for (int line = Math.min(aStartLine - 1, oldText.size() - 1); line > limit && line >= 0; line--) {
            byte[] candidate = funcLine(oldText.getRawString(line));
            if (candidate != null) {
                lastFuncName = candidate;
                break;
            }
        }
        searchedDownTo = aStartLine - 1;
        return lastFuncName;
    }

    private static byte[] funcLine(ByteBuffer raw) {
        if (!raw.hasRemaining()) {
            return null;
        }
        byte first = raw.get(raw.position());
        boolean starts = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_'
                || first == '$';
        if (!starts) {
            return null;
        }
        int length = Math.min(raw.remaining(), FUNC_NAME_MAX);
        byte[] bytes = new byte[length];
        raw.duplicate().get(bytes);
        int end = length;
        while (end > 0 && isSpace(bytes[end - 1])) {
            end--;
        }
        return Arrays.copyOf(bytes, end);
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0b || b == 0x0c;
    }
}
