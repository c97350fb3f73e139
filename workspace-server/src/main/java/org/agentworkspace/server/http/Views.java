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
