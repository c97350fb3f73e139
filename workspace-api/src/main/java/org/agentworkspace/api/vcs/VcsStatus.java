package org.agentworkspace.api.vcs;

import java.util.List;
import java.util.Objects;

/**
 * The spec's {@code GitStatus}: the current branch, its distance to its upstream, and changed paths.
 *
 * <p>Each path is repository-relative with {@code /} separators, and every list is sorted. Paths are sorted into
 * the lists by their two-letter state as {@code git status --porcelain=v1} prints it (X = index against HEAD,
 * Y = working tree against index), without rename detection (a staged rename is a deleted old path and an added
 * new path) and with untracked files listed one by one (like {@code --untracked-files=all}); ignored files never
 * appear:
 * <ul>
 *   <li>{@link #untracked()}: {@code ??}.</li>
 *   <li>{@link #deleted()}: X or Y is {@code D} ({@code D }, {@code  D}, {@code MD}, {@code AD}).</li>
 *   <li>{@link #added()}: otherwise X is {@code A} ({@code A }, {@code AM}).</li>
 *   <li>{@link #modified()}: otherwise X or Y is {@code M} or {@code T}, and every unmerged path
 *       ({@code UU}, {@code AA}, {@code DU}, ... during a conflicted merge).</li>
 * </ul>
 * A path is in at most one list, except that a path deleted in the index and present again as an untracked file
 * ({@code D } plus {@code ??}) is in both {@code deleted} and {@code untracked}, as git prints both lines.
 * {@link #staged()} lists, besides, the paths whose index entry differs from HEAD (X is {@code M}, {@code T},
 * {@code A} or {@code D}, the path not unmerged): what a commit without named files records.
 *
 * @param branch short name of the checked-out branch; {@code HEAD} when HEAD is detached
 * @param ahead commits on the branch that its upstream lacks; 0 without an upstream
 * @param behind commits on the upstream that the branch lacks; 0 without an upstream
 * @param staged paths with staged changes (also in one of the other lists)
 */
public record VcsStatus(String branch, int ahead, int behind, List<String> modified, List<String> added,
                        List<String> deleted, List<String> untracked, List<String> staged) {
    public VcsStatus {
        Objects.requireNonNull(branch, "branch");
        modified = List.copyOf(modified);
        added = List.copyOf(added);
        deleted = List.copyOf(deleted);
        untracked = List.copyOf(untracked);
        staged = List.copyOf(staged);
    }

    /** True when the working tree or the index has any change (untracked files included). */
    public boolean hasChanges() {
        return !(modified.isEmpty() && added.isEmpty() && deleted.isEmpty() && untracked.isEmpty());
    }
}
