package org.agentworkspace.api.vcs;

import java.util.List;

/**
 * The paths that differ between two recorded trees, in path order.
 *
 * @param changes at most the limit asked for
 * @param total   how many paths differ in all
 */
public record TreeChanges(List<TreeChange> changes, int total) {
    public TreeChanges {
        changes = List.copyOf(changes);
    }

    public boolean truncated() {
        return total > changes.size();
    }

    public long count(TreeChange.Kind kind) {
        return changes.stream().filter(c -> c.kind() == kind).count();
    }
}
