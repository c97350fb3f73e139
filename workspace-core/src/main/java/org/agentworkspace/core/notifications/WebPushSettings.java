package org.agentworkspace.core.notifications;

import java.time.Duration;
import java.util.Objects;

/**
 * Web Push delivery settings.
 *
 * @param subject           the VAPID {@code sub} claim: a {@code mailto:} or {@code https:} contact for the push
 *                          services' operators ({@code --web-push-subject})
 * @param allowLoopbackHttp accept (and deliver to) {@code http://127.0.0.1:<port>/…} endpoints — for tests and local
 *                          development with a stand-in push service only ({@code --web-push-allow-loopback-http});
 *                          no other plain-http or private endpoint is ever accepted
 * @param timeout           how long one delivery may take (connect and answer)
 * @param ttl               the {@code TTL} header: how long the push service keeps an undelivered message
 */
public record WebPushSettings(String subject, boolean allowLoopbackHttp, Duration timeout, Duration ttl) {
    public WebPushSettings {
        Objects.requireNonNull(subject, "subject");
        if (!(subject.startsWith("mailto:") || subject.startsWith("https://")) || subject.length() > 200) {
            throw new IllegalArgumentException("the web push subject must be a mailto: or https: URL");
        }
        if (timeout.isNegative() || timeout.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("web push timeout and TTL must be positive");
        }
    }

    public static WebPushSettings defaults() {
        return new WebPushSettings("mailto:operator@agent-workspace.invalid", false, Duration.ofSeconds(10),
                Duration.ofHours(24));
    }

    public WebPushSettings withSubject(String s) {
        return new WebPushSettings(s, allowLoopbackHttp, timeout, ttl);
    }

    public WebPushSettings withAllowLoopbackHttp(boolean on) {
        return new WebPushSettings(subject, on, timeout, ttl);
    }

    public WebPushSettings withTimeout(Duration d) {
        return new WebPushSettings(subject, allowLoopbackHttp, d, ttl);
    }
}
