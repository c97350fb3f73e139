package org.agentworkspace.server.routes;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.DeleteResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileContent;
import org.agentworkspace.api.files.FileEntry;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.core.files.FileLimits;
import org.agentworkspace.core.files.ProjectFiles;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Files of a project ({@code /api/projects/{projectName}/file[s]}). Every path goes through the engine's
 * {@code PathGuard}; see docs/files-and-git.md. The routes that carry file content accept bodies up to
 * {@code maxFileBodyBytes} (twice the file limit plus 64 KiB), the others the server's default limit.
 */
public final class FilesService extends ApiService {
    private final ProjectRegistry projects;
    private final FileLimits limits;
    private final long maxFileBody;

    public FilesService(ProjectRegistry projects, FileLimits limits, long maxFileBody, Guard guard,
                        RouteTable table) {
        super("files", guard, table);
        this.projects = projects;
        this.limits = limits;
        this.maxFileBody = maxFileBody;
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.PROJECTS_READ);
        Access write = Access.scope(Scope.PROJECTS_WRITE);
        // on a shared store, served by a node whose roots hold the project's folder (docs/scale-out.md)
        r.placed((call, nodes) -> nodes.projectFolder(call.pathParam("projectName")))
                .get("/api/projects/{projectName}/files", read, this::list)
                .delete("/api/projects/{projectName}/files", write, this::delete)
                .get("/api/projects/{projectName}/file", read, this::read)
                .put("/api/projects/{projectName}/file", write, maxFileBody, this::write)
                .post("/api/projects/{projectName}/files/create", write, maxFileBody, this::create)
                .put("/api/projects/{projectName}/files/rename", write, this::rename);
    }

    private ProjectFiles files(Call call) {
        return projects.files(call.pathParam("projectName"), limits);
    }

    private void list(Call call) {
        ProjectFiles files = files(call);
        call.ok(files.list(call.query("path").orElse("")).stream().map(Views::fileEntry).toList());
    }

    private void read(Call call) {
        ProjectFiles files = files(call);
        String path = call.requiredQuery("path");
        FileContent content = files.read(path);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", RelativePath.parse(path).value());
        m.put("content", content.content());
        m.put("encoding", content.encoding().wireName());
        call.ok(m);
    }

    private void write(Call call) {
        ProjectFiles files = files(call);
        JsonNode body = call.body();
        String path = Call.requiredString(body, "path");
        byte[] bytes = decode(Call.requiredString(body, "content"),
                Call.optionalString(body, "encoding").orElse("utf-8"));
        call.ok(change(files.write(path, bytes)));
    }

    private void create(Call call) {
        ProjectFiles files = files(call);
        JsonNode body = call.body();
        String path = Call.requiredString(body, "path");
        EntryType type = type(Call.requiredString(body, "type"));
        String content = Call.optionalString(body, "content").orElse(null);
        call.created(change(files.create(path, type, type == EntryType.FILE ? content : null)));
    }

    private void rename(Call call) {
        ProjectFiles files = files(call);
        JsonNode body = call.body();
        String oldPath = Call.requiredString(body, "oldPath");
        FileEntry moved = files.rename(oldPath, Call.requiredString(body, "newPath"));
        call.ack("oldPath", RelativePath.parse(oldPath).value(), "newPath", moved.path(),
                "type", Views.type(moved.type()));
    }

    private void delete(Call call) {
        ProjectFiles files = files(call);
        JsonNode body = call.body();
        String path = Call.requiredString(body, "path");
        EntryType hint = Call.optionalString(body, "type").map(FilesService::type).orElse(null);
        DeleteResult removed = files.delete(path, hint);
        call.ack("path", removed.path(), "type", Views.type(removed.type()), "recursive", removed.recursive(),
                "entriesRemoved", removed.entriesRemoved());
    }

    private static Map<String, Object> change(FileEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("path", e.path());
        m.put("type", Views.type(e.type()));
        m.put("size", e.size());
        return m;
    }

    private static EntryType type(String wire) {
        return switch (wire) {
            case "file" -> EntryType.FILE;
            case "directory" -> EntryType.DIRECTORY;
            default -> throw WorkspaceException.Validation.of("type must be file or directory");
        };
    }

    /** The content of a write: UTF-8 text, or standard base64 (RFC 4648, padded, no line breaks). */
    private static byte[] decode(String content, String encoding) {
        return switch (encoding) {
            case "utf-8" -> content.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            case "base64" -> {
                try {
                    yield Base64.getDecoder().decode(content);
                } catch (IllegalArgumentException e) {
                    throw WorkspaceException.Validation.of("content is not valid base64");
                }
            }
            default -> throw WorkspaceException.Validation.of("encoding must be utf-8 or base64");
        };
    }
}
