package org.agentworkspace.server.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.files.BrowseEntry;
import org.agentworkspace.api.files.BrowseResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileEntry;
import org.agentworkspace.api.vcs.Branches;
import org.agentworkspace.api.vcs.VcsStatus;
import org.agentworkspace.core.projects.RegisteredProject;

/** The wire shapes of engine records, exactly as the OpenAPI document names their fields. */
public final class Views {
    private Views() {
    }

    /** {@code User}: id, username, email, created_at, is_admin. */
    public static Map<String, Object> user(User u) {
        if (u == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", u.id());
        m.put("username", u.username());
        m.put("email", u.email());
        m.put("created_at", u.createdAt().toString());
        m.put("is_admin", u.admin());
        return m;
    }

    /** {@code ApiKey}: the value as given (full only in the creation response). */
    public static Map<String, Object> apiKey(ApiKeyInfo k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", k.id());
        m.put("key_name", k.name());
        m.put("api_key", k.value());
        m.put("created_at", k.createdAt().toString());
        m.put("last_used", k.lastUsed() == null ? null : k.lastUsed().toString());
        m.put("is_active", k.active());
        m.put("scopes", k.scopes().stream().map(Scope::id).sorted().toList());
        m.put("legacy", k.legacy());
        return m;
    }

    /**
     * {@code Project}: a registered project with its sessions ({@code path} and {@code fullPath} are both the real
     * path it was registered with).
     */
    public static Map<String, Object> project(RegisteredProject p, List<?> sessions) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", p.name());
        m.put("displayName", p.displayName());
        m.put("path", p.path());
        m.put("fullPath", p.path());
        m.put("sessions", sessions);
        return m;
    }

    /**
     * {@code Project} of the unified list: a history project, a registered one, or both merged; {@code sessions}
     * holds the newest few ({@code sessionCount} counts all).
     */
    public static Map<String, Object> project(org.agentworkspace.core.index.IndexedProject p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", p.name());
        m.put("displayName", p.displayName());
        m.put("path", p.path());
        m.put("fullPath", p.path());
        m.put("sessions", p.sessions().stream().map(Views::session).toList());
        m.put("sessionCount", p.sessionCount());
        m.put("lastActivity", p.lastActivity() == null ? null : p.lastActivity().toString());
        m.put("registered", p.registered());
        return m;
    }

    /** {@code SessionMeta}. */
    public static Map<String, Object> session(org.agentworkspace.core.index.IndexedSession s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.sessionId());
        m.put("title", s.title());
        m.put("provider", s.provider());
        m.put("lastActivity", s.lastActivity().toString());
        m.put("createdAt", s.createdAt().toString());
        m.put("messageCount", s.messageCount());
        m.put("projectName", s.projectName());
        return m;
    }

    /** {@code SessionMessage}: the provider-neutral {@code HistoryMessage} fields. */
    public static Map<String, Object> message(org.agentworkspace.api.history.HistoryMessage h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", h.id());
        m.put("role", h.role());
        m.put("kind", h.kind());
        m.put("text", h.text());
        m.put("toolName", h.toolName());
        m.put("toolCallId", h.toolCallId());
        m.put("toolInputJson", h.toolInputJson());
        m.put("toolOutput", h.toolOutput());
        m.put("toolError", h.toolError());
        m.put("timestamp", h.timestamp() == null ? null : h.timestamp().toString());
        if (h.usage() == null) {
            m.put("usage", null);
        } else {
            Map<String, Object> u = new LinkedHashMap<>();
            u.put("inputTokens", h.usage().inputTokens());
            u.put("outputTokens", h.usage().outputTokens());
            u.put("cacheReadTokens", h.usage().cacheReadTokens());
            u.put("cacheWriteTokens", h.usage().cacheWriteTokens());
            m.put("usage", u);
        }
        return m;
    }

    /** {@code SessionMessagesPage}. */
    public static Map<String, Object> messagePage(org.agentworkspace.api.history.MessagePage page) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("messages", page.messages().stream().map(Views::message).toList());
        m.put("total", page.total());
        m.put("hasMore", page.hasMore());
        m.put("offset", page.offset());
        m.put("limit", page.limit());
        return m;
    }

    /** {@code SearchResults}. */
    public static Map<String, Object> searchResults(org.agentworkspace.core.index.SearchResults r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("results", r.results().stream().map(h -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("provider", h.provider());
            x.put("sessionId", h.sessionId());
            x.put("projectName", h.projectName());
            x.put("sessionTitle", h.sessionTitle());
            x.put("title", h.sessionTitle());
            x.put("messageId", h.messageId());
            x.put("role", h.role());
            x.put("timestamp", h.timestamp() == null ? null : h.timestamp().toString());
            x.put("snippet", h.snippet());
            x.put("score", h.score());
            return x;
        }).toList());
        m.put("total", r.total());
        return m;
    }

    /** {@code HistoryIndexStatus}. */
    public static Map<String, Object> indexStatus(org.agentworkspace.core.index.IndexStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", s.state());
        m.put("sessions", s.sessions());
        m.put("sessionsIndexed", s.sessionsIndexed());
        m.put("messages", s.messages());
        m.put("filesPending", s.filesPending());
        m.put("corruptLines", s.corruptLines());
        m.put("startedAt", s.startedAt().toString());
        m.put("listedAt", s.listedAt() == null ? null : s.listedAt().toString());
        m.put("readyAt", s.readyAt() == null ? null : s.readyAt().toString());
        return m;
    }

    /** {@code file} or {@code directory}. */
    public static String type(EntryType t) {
        return t.name().toLowerCase(Locale.ROOT);
    }

    /** {@code FileEntry}: name, path, type, size (null for directories). */
    public static Map<String, Object> fileEntry(FileEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("path", e.path());
        m.put("type", type(e.type()));
        m.put("size", e.size());
        return m;
    }

    /** {@code BrowseListing}. */
    public static Map<String, Object> browse(BrowseResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", r.path());
        m.put("parent", r.parent());
        m.put("entries", r.entries().stream().map(Views::browseEntry).toList());
        return m;
    }

    private static Map<String, Object> browseEntry(BrowseEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("type", type(e.type()));
        return m;
    }

    /** {@code GitStatus}. */
    public static Map<String, Object> gitStatus(VcsStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("branch", s.branch());
        m.put("ahead", s.ahead());
        m.put("behind", s.behind());
        m.put("modified", s.modified());
        m.put("added", s.added());
        m.put("deleted", s.deleted());
        m.put("untracked", s.untracked());
        m.put("staged", s.staged());
        return m;
    }

    /** {@code GitLog}. */
    public static Map<String, Object> gitLog(org.agentworkspace.api.vcs.CommitLog log) {
        List<Map<String, Object>> commits = new java.util.ArrayList<>();
        for (org.agentworkspace.api.vcs.CommitLog.Entry e : log.commits()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("hash", e.hash());
            c.put("shortHash", e.shortHash());
            c.put("subject", e.subject());
            c.put("author", e.authorName());
            c.put("authorEmail", e.authorEmail());
            c.put("date", e.date().toString());
            commits.add(c);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("commits", commits);
        m.put("next", log.next());
        return m;
    }

    /** {@code GitBranches}. */
    public static Map<String, Object> branches(Branches b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("current", b.current());
        m.put("local", b.local());
        m.put("remote", b.remote());
        return m;
    }
}
