package org.agentworkspace.core.tasks;

/** Stable error codes of the task family. */
public final class TaskErrorCodes {
    /** 400: the schedule is not one of the documented kinds, or its values are out of range. */
    public static final String INVALID_SCHEDULE = "INVALID_SCHEDULE";
    /** 404: no task with that id (or not the caller's). */
    public static final String TASK_NOT_FOUND = "TASK_NOT_FOUND";
    /** 409: the transition is not allowed from the task's state. */
    public static final String TASK_STATE_CONFLICT = "TASK_STATE_CONFLICT";

    private TaskErrorCodes() {
    }
}
