package org.agentworkspace.core.loop;

/** Stable error codes of the production agent loop, each raised with the exception subtype written next to it. */
public final class LoopErrorCodes {
    private LoopErrorCodes() {
    }

    /** {@code NotFound}: no background job has that id (or it is no longer kept). */
    public static final String BACKGROUND_JOB_NOT_FOUND = "BACKGROUND_JOB_NOT_FOUND";
    /** {@code Conflict}: the job is of a kind the engine cannot cancel (the history index). */
    public static final String BACKGROUND_JOB_NOT_CANCELLABLE = "BACKGROUND_JOB_NOT_CANCELLABLE";
    /** {@code NotFound}: the project has no checkpoint with that id. */
    public static final String CHECKPOINT_NOT_FOUND = "CHECKPOINT_NOT_FOUND";
    /**
     * {@code Conflict}: restoring would overwrite changes that are neither committed nor kept in any checkpoint;
     * repeat with {@code force: true} to restore anyway, or create a checkpoint first.
     */
    public static final String WOULD_LOSE_CHANGES = "WOULD_LOSE_CHANGES";
    /** {@code Conflict}: a run is queued or running in the project; its files are not restored under it. */
    public static final String PROJECT_BUSY = "PROJECT_BUSY";
    /** {@code NotFound}: no CI repair plan has that id. */
    public static final String CI_REPAIR_PLAN_NOT_FOUND = "CI_REPAIR_PLAN_NOT_FOUND";
    /** {@code NotFound}: no review item has that id. */
    public static final String REVIEW_ITEM_NOT_FOUND = "REVIEW_ITEM_NOT_FOUND";
    /**
     * {@code Conflict}: a revert was asked for an item whose record in the repository was deleted or moved after
     * it was made (perhaps by the run itself): the files are not put back from it.
     */
    public static final String REVIEW_RECORD_CHANGED = "REVIEW_RECORD_CHANGED";
    /** {@code Conflict}: the review item was approved or rejected already. */
    public static final String REVIEW_ALREADY_DECIDED = "REVIEW_ALREADY_DECIDED";
}
