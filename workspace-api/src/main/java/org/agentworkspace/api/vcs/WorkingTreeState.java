package org.agentworkspace.api.vcs;

/**
 * The working tree as git would record it now.
 *
 * @param tree     the id of the tree the working tree (tracked and untracked files, not ignored ones) would record
 * @param headTree the tree of HEAD's commit, or {@code null} in a repository without commits
 */
public record WorkingTreeState(String tree, String headTree) {
    /** True when the working tree holds nothing that HEAD's commit does not (no uncommitted or untracked file). */
    public boolean clean() {
        return tree.equals(headTree);
    }
}
