package org.agentworkspace.core.notifications;

/** Error codes of the notification family (docs/errors.md, docs/notifications.md). */
public final class NotificationErrorCodes {
    private NotificationErrorCodes() {
    }

    /** 404: no notification of the caller has this id (never existed, pushed out of the bounded list, or another user's). */
    public static final String NOTIFICATION_NOT_FOUND = "NOTIFICATION_NOT_FOUND";
    /** 400: the push endpoint is not an absolute https URL of a public host (docs/notifications.md). */
    public static final String INVALID_PUSH_ENDPOINT = "INVALID_PUSH_ENDPOINT";
    /** 400: {@code keys.p256dh} is not a P-256 point, or {@code keys.auth} is not 16 bytes, in base64url. */
    public static final String INVALID_PUSH_KEYS = "INVALID_PUSH_KEYS";
    /** 404: no push subscription of the caller has this id. */
    public static final String PUSH_SUBSCRIPTION_NOT_FOUND = "PUSH_SUBSCRIPTION_NOT_FOUND";
    /** 409: the caller already has the most push subscriptions one user may hold. */
    public static final String TOO_MANY_PUSH_SUBSCRIPTIONS = "TOO_MANY_PUSH_SUBSCRIPTIONS";
}
