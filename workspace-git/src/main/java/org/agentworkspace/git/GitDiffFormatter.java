package org.agentworkspace.git;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import org.eclipse.jgit.diff.DiffDriver;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.lib.AbbreviatedObjectId;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
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
 *   <li>An abbreviated id on the {@code index} line is made longer while another object of the repository starts
 *       with it, also when the id itself is not in the repository (a working-tree file's content): JGit counts
 *       only the objects it finds, so one other object with the same 7-digit prefix left its abbreviation at 7
 *       where git writes 8 (seen in a change set of 2,000 files).</li>
 * </ul>
 */
final class GitDiffFormatter extends DiffFormatter {
    private static final int FUNC_NAME_MAX = 80;
    private static final Pattern AFTER_NEWLINE = Pattern.compile("(?<=\n)");

    private RawText oldText;
    private int searchedDownTo;
    private byte[] lastFuncName;

    private int abbreviationLength = 7;
    private ObjectReader abbreviations;

    GitDiffFormatter(OutputStream out) {
        super(out);
    }

    @Override
    public void setRepository(Repository repository) {
        super.setRepository(repository);
        if (abbreviations != null) {
            abbreviations.close();
        }
        abbreviations = repository.newObjectReader();
    }

    @Override
    public void setAbbreviationLength(int count) {
        super.setAbbreviationLength(count);
        abbreviationLength = count;
    }

    @Override
    public void close() {
        if (abbreviations != null) {
            abbreviations.close();
            abbreviations = null;
        }
        super.close();
    }

    @Override
    protected void formatIndexLine(OutputStream o, DiffEntry ent) throws IOException {
        String line = "index " + abbreviate(ent.getOldId()) + ".." + abbreviate(ent.getNewId());
        o.write(line.getBytes(StandardCharsets.US_ASCII));
        if (ent.getOldMode().equals(ent.getNewMode())) {
            o.write(' ');
            ent.getNewMode().copyTo(o);
        }
        o.write('\n');
    }

    /** git's unique abbreviation: no other object of the repository starts with it. */
    private String abbreviate(AbbreviatedObjectId id) throws IOException {
        if (!id.isComplete() || abbreviations == null) {
            return id.name();
        }
        ObjectId full = id.toObjectId();
        String name = full.name();
        for (int length = abbreviationLength; length < name.length(); length++) {
            boolean unique = true;
            for (ObjectId match : abbreviations.resolve(AbbreviatedObjectId.fromString(name.substring(0, length)))) {
                if (!match.equals(full)) {
                    unique = false;
                    break;
                }
            }
            if (unique) {
                return name.substring(0, length);
            }
        }
        return name;
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
        for (String line : AFTER_NEWLINE.split(header)) {
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
