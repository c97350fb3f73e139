package org.agentworkspace.server.routes;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.agentworkspace.core.providers.JobEvent;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.JournalStream;

/**
 * The frames of an install job's stream (written by the {@link JournalStream} follower): each job event as
 * {@code log}, {@code status}, {@code done} or {@code error} with {@code id:} the event's id, ending after the
 * terminal one; a comment line {@code ping} as heartbeat. Disconnecting does not cancel the job.
 */
final class InstallStream implements JournalStream.Frames<JobEvent> {
    private final Json json;

    InstallStream(Json json) {
        this.json = json;
    }

    @Override
    public boolean entry(JobEvent e, JournalStream.Out out) {
        switch (e) {
            case JobEvent.Log l -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("stream", l.stream());
                m.put("text", l.text());
                m.put("at", l.at().toString());
                out.emit(e.id(), "log", text(m));
            }
            case JobEvent.StatusChange s -> out.emit(e.id(), "status", text(ProvidersService.job(s.job())));
            case JobEvent.Done d -> out.emit(e.id(), "done", text(ProvidersService.job(d.job())));
            case JobEvent.Failed f -> out.emit(e.id(), "error", text(Map.of("code", f.code(), "message",
                    f.message())));
        }
        return e.terminal();
    }

    @Override
    public void heartbeat(long at, JournalStream.Out out) {
        out.comment("ping");
    }

    private String text(Object value) {
        return new String(json.write(value), StandardCharsets.UTF_8);
    }
}
