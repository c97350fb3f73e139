package org.agentworkspace.server.routes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.helidon.http.HeaderNames;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.sse.SseSink;

import org.agentworkspace.api.Principal;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.providers.InstallJobs;
import org.agentworkspace.core.providers.JobEvent;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Json;

/**
 * Writes an install job as server-sent events: every kept event with an id above the client's {@code Last-Event-ID}
 * (all of them without one), then new ones as they come, until the job's terminal event ({@code done}, or
 * {@code error} for a failure). Each frame carries {@code id:}, the job event's id. A comment line is sent every
 * {@link #HEARTBEAT} while nothing happens; a revoked credential ends the stream with {@code error}
 * {@code CREDENTIAL_REVOKED}. Disconnecting does not cancel the job.
 */
final class InstallStream {
    static final Duration HEARTBEAT = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofSeconds(2);

    private final Authentication auth;
    private final Json json;
    private final org.agentworkspace.server.http.StreamLimiter streams;

    InstallStream(Authentication auth, Json json, org.agentworkspace.server.http.StreamLimiter streams) {
        this.auth = auth;
        this.json = json;
        this.streams = streams;
    }

    void write(Call call, InstallJobs.Job job, long lastEventId) throws InterruptedException {
        Principal principal = call.principal();
        call.response().header(HeaderNames.CACHE_CONTROL, "no-cache, no-transform");
        call.response().header(HeaderNames.create("X-Accel-Buffering"), "no");
        try (org.agentworkspace.server.http.StreamLimiter.Slot slot = streams.acquire(principal);
             SseSink sink = call.response().sink(SseSink.TYPE)) {
            long last = lastEventId;
            long quiet = 0;
            if (last >= job.lastEventId() && job.finished()) {
                return;
            }
            while (true) {
                List<JobEvent> events = job.eventsAfter(last, POLL);
                for (JobEvent e : events) {
                    sink.emit(frame(e));
                    last = e.id();
                    if (e.terminal()) {
                        return;
                    }
                }
                if (events.isEmpty()) {
                    if (job.finished() && last >= job.lastEventId()) {
                        return;
                    }
                    quiet += POLL.toMillis();
                    if (!auth.stillValid(principal)) {
                        sink.emit(SseEvent.builder().name("error").data(text(Map.of("code", "CREDENTIAL_REVOKED",
                                "message", "the credential that opened this stream is no longer valid"))).build());
                        return;
                    }
                    if (quiet >= HEARTBEAT.toMillis()) {
                        quiet = 0;
                        sink.emit(RunStreams.keepAliveEvent("ping"));
                    }
                } else {
                    quiet = 0;
                }
            }
        } catch (java.io.UncheckedIOException e) {
            // the client went away; the job goes on
        }
    }

    private SseEvent frame(JobEvent e) {
        SseEvent.Builder b = SseEvent.builder().id(Long.toString(e.id()));
        return switch (e) {
            case JobEvent.Log l -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("stream", l.stream());
                m.put("text", l.text());
                m.put("at", l.at().toString());
                yield b.name("log").data(text(m)).build();
            }
            case JobEvent.StatusChange s -> b.name("status").data(text(ProvidersService.job(s.job()))).build();
            case JobEvent.Done d -> b.name("done").data(text(ProvidersService.job(d.job()))).build();
            case JobEvent.Failed f -> b.name("error").data(text(Map.of("code", f.code(), "message", f.message())))
                    .build();
        };
    }

    private String text(Object value) {
        return new String(json.write(value), StandardCharsets.UTF_8);
    }
}
