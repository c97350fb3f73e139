package org.agentworkspace.api.vcs;

/**
 * What a restore from a snapshot changed in the working tree.
 *
 * @param written files written (created or overwritten)
 * @param deleted files removed because the snapshot does not have them
 */
public record RestoreResult(int written, int deleted) {
}
