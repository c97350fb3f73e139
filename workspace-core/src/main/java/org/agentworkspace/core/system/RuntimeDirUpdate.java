package org.agentworkspace.core.system;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.agentworkspace.core.json.JsonMappers;

/**
 * A {@code runtime-dir} update. Layout of the runtime directory (docs/system-update.md):
 * <pre>
 *   runtime/
 *     current -> versions/0.2.0        a relative symbolic link; the launcher starts current/workspace-server.jar
 *     versions/0.1.0/                  the previous version (kept for a manual roll-back)
 *     versions/0.2.0/                  workspace-server.jar, libs/, ...
 * </pre>
 * Steps: read the manifest ({@code {version, url, sha256, size?}}); stop with {@code updated: false} unless its
 * version is newer than the running one; download the package into {@code versions/.download-*} (at most the
 * configured size); check its SHA-256; unpack it into {@code versions/.unpack-*} (no entry may leave that folder;
 * at most four times the package size and 20,000 entries); rename it to {@code versions/<version>}; point a new
 * link {@code .current-*} at it and rename that over {@code current} (one atomic step); prune versions other than
 * the new and the previous one. Any failure before the switch removes what this update wrote, so {@code current}
 * and the installed versions stay as they were.
 */
final class RuntimeDirUpdate {
    static final String SERVER_JAR = "workspace-server.jar";
    static final int MAX_MANIFEST_BYTES = 64 * 1024;
    static final int MAX_ENTRIES = 20_000;
    private static final Pattern SEMVER = Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-fA-F]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final UpdateSettings settings;
    private final UpdateJob job;
    private final HttpClient http;

    RuntimeDirUpdate(UpdateSettings settings, UpdateJob job) {
        this.settings = settings;
        this.job = job;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(15))
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    record Manifest(String version, URI url, String sha256, Long size) {
    }

    UpdateOutcome run(String running) throws UpdateFailure, IOException, InterruptedException {
        try {
            return install(running);
        } finally {
            http.shutdownNow();
        }
    }

    private UpdateOutcome install(String running) throws UpdateFailure, IOException, InterruptedException {
        if (settings.manifestUrl() == null) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_CONFIGURED, "no update source is configured: start "
                    + "the service with --update-url (AW_UPDATE_URL) naming the manifest of its packages");
        }
        Path runtime = settings.runtimeDir();
        job.progress("checking", null, "reading the manifest");
        job.log("meta", "manifest " + printable(settings.manifestUrl()));
        Manifest m = manifest();
        job.log("meta", "latest version " + m.version() + ", running " + running);
        if (compare(m.version(), running) <= 0) {
            return new UpdateOutcome(false, InstallMode.RUNTIME_DIR, running, m.version(), null, null, false,
                    "already up to date (running " + running + ", latest " + m.version() + ")");
        }
        Path versions = runtime.resolve("versions");
        createPrivateDirectories(versions);
        removeLeftovers(runtime, versions);
        String tag = Long.toHexString(RANDOM.nextLong() & Long.MAX_VALUE);
        Path download = versions.resolve(".download-" + tag + ".zip");
        Path unpack = versions.resolve(".unpack-" + m.version() + "-" + tag);
        Path target = versions.resolve(m.version());
        Path aside = null;
        boolean movedIn = false;
        boolean switched = false;
        try {
            String digest = download(m, download);
            job.progress("verifying", null, "checking the SHA-256");
            if (!digest.equalsIgnoreCase(m.sha256())) {
                throw new UpdateFailure(UpdateErrorCodes.UPDATE_CHECKSUM_MISMATCH, "the package's SHA-256 is "
                        + digest + ", the manifest says " + m.sha256().toLowerCase(Locale.ROOT)
                        + "; nothing was installed");
            }
            job.log("meta", "sha256 " + digest + " matches the manifest");
            job.progress("unpacking", null, "unpacking the package");
            Path content = unpack(download, unpack);
            job.progress("swapping", null, "switching current to " + m.version());
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                aside = versions.resolve(".old-" + m.version() + "-" + tag);
                Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(content, target, StandardCopyOption.ATOMIC_MOVE);
            movedIn = true;
            String previous = currentVersion(runtime);
            swapCurrent(runtime, tag, m.version());
            switched = true;
            job.log("meta", "current -> versions/" + m.version() + (previous == null ? "" : " (was " + previous + ")"));
            prune(versions, m.version(), previous);
        } catch (IOException e) {
            if (switched) {
                throw e;
            }
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_FAILED, "cannot write the new version to "
                    + versions + " (" + e.getClass().getSimpleName() + "); nothing was switched");
        } finally {
            Files.deleteIfExists(download);
            deleteTree(unpack);
            if (!switched) {
                if (movedIn) {
                    deleteTree(target);
                }
                if (aside != null && Files.exists(aside, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE);
                }
            } else if (aside != null) {
                deleteTree(aside);
            }
        }
        job.progress("restarting", null, "exiting with code " + SystemUpdater.RESTART_EXIT_CODE
                + " for the launcher to start " + m.version());
        return new UpdateOutcome(true, InstallMode.RUNTIME_DIR, running, m.version(), null, null, true,
                "version " + m.version() + " installed in " + target + "; the service restarts");
    }

    // ------------------------------------------------------------------------------------------------ manifest

    private Manifest manifest() throws UpdateFailure, InterruptedException {
        URI url = settings.manifestUrl();
        byte[] body;
        try {
            HttpResponse<InputStream> res = http.send(HttpRequest.newBuilder(url).timeout(settings.timeout())
                    .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = res.body(); BodyDeadline deadline = BodyDeadline.watch(in, settings.timeout())) {
                if (res.statusCode() != 200) {
                    throw new UpdateFailure(UpdateErrorCodes.UPDATE_SOURCE_UNAVAILABLE, "the manifest at "
                            + printable(url) + " answered HTTP " + res.statusCode());
                }
                try {
                    body = in.readNBytes(MAX_MANIFEST_BYTES + 1);
                } catch (IOException e) {
                    if (deadline.expired()) {
                        throw tooSlow(url);
                    }
                    throw e;
                }
            }
        } catch (IOException e) {
            throw unreachable(url, e);
        }
        if (body.length > MAX_MANIFEST_BYTES) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_MANIFEST_INVALID, "the manifest is larger than "
                    + MAX_MANIFEST_BYTES / 1024 + " KiB");
        }
        if (settings.publicKey() != null) {
            verifySignature(body, url);
        }
        return parse(body, url);
    }

    /**
     * Checks the manifest's Ed25519 signature: the base64 of the 64-byte signature over the manifest's exact bytes,
     * served at the manifest's URL with {@code .sig} appended to its path.
     */
    private void verifySignature(byte[] manifest, URI url) throws UpdateFailure, InterruptedException {
        URI sigUrl;
        try {
            sigUrl = new URI(url.getScheme(), url.getRawAuthority(), url.getPath() + ".sig", url.getQuery(), null);
        } catch (java.net.URISyntaxException e) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_SIGNATURE_INVALID, "no signature URL for the manifest");
        }
        byte[] text;
        try {
            HttpResponse<InputStream> res = http.send(HttpRequest.newBuilder(sigUrl).timeout(settings.timeout())
                    .GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = res.body(); BodyDeadline deadline = BodyDeadline.watch(in, settings.timeout())) {
                if (res.statusCode() != 200) {
                    throw new UpdateFailure(UpdateErrorCodes.UPDATE_SIGNATURE_INVALID, "an update key is configured "
                            + "but the manifest's signature " + printable(sigUrl) + " answered HTTP "
                            + res.statusCode());
                }
                try {
                    text = in.readNBytes(1024);
                } catch (IOException e) {
                    if (deadline.expired()) {
                        throw tooSlow(sigUrl);
                    }
                    throw e;
                }
            }
        } catch (IOException e) {
            throw unreachable(sigUrl, e);
        }
        boolean valid;
        try {
            byte[] sig = java.util.Base64.getDecoder().decode(new String(text, java.nio.charset.StandardCharsets.US_ASCII)
                    .strip());
            java.security.Signature verifier = java.security.Signature.getInstance("Ed25519");
            verifier.initVerify(settings.publicKey());
            verifier.update(manifest);
            valid = verifier.verify(sig);
        } catch (IllegalArgumentException | java.security.GeneralSecurityException e) {
            valid = false;
        }
        if (!valid) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_SIGNATURE_INVALID, "the manifest's signature is not a "
                    + "valid signature by the configured update key; nothing was installed");
        }
        job.log("meta", "manifest signature verified");
    }

    static Manifest parse(byte[] body, URI base) throws UpdateFailure {
        JsonNode root;
        try {
            root = JsonMappers.shared().readTree(body);
        } catch (IOException e) {
            throw invalid("the manifest is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw invalid("the manifest is not a JSON object");
        }
        String version = text(root, "version");
        if (version == null || !SEMVER.matcher(version).matches()) {
            throw invalid("the manifest's version must be X.Y.Z");
        }
        String sha = text(root, "sha256");
        if (sha == null || !SHA256.matcher(sha).matches()) {
            throw invalid("the manifest's sha256 must be 64 hexadecimal digits");
        }
        String link = text(root, "url");
        if (link == null || link.isBlank()) {
            throw invalid("the manifest names no package url");
        }
        URI url;
        try {
            url = base.resolve(new URI(link.strip()));
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            throw invalid("the manifest's package url is not a URL");
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null || url.getUserInfo() != null) {
            throw invalid("the manifest's package url must be an http(s) URL without credentials");
        }
        Long size = null;
        JsonNode s = root.get("size");
        if (s != null && !s.isNull()) {
            if (!s.canConvertToLong() || !s.isIntegralNumber() || s.asLong() < 0) {
                throw invalid("the manifest's size must be a whole number of bytes");
            }
            size = s.asLong();
        }
        return new Manifest(version, url, sha.toLowerCase(Locale.ROOT), size);
    }

    private static String text(JsonNode root, String field) {
        JsonNode n = root.get(field);
        return n != null && n.isTextual() ? n.asText() : null;
    }

    private static UpdateFailure invalid(String message) {
        return new UpdateFailure(UpdateErrorCodes.UPDATE_MANIFEST_INVALID, message);
    }

    private UpdateFailure tooSlow(URI url) {
        return new UpdateFailure(UpdateErrorCodes.UPDATE_SOURCE_UNAVAILABLE, "fetching " + printable(url)
                + " took longer than " + settings.timeout().toSeconds() + " s; nothing was installed");
    }

    private static UpdateFailure unreachable(URI url, IOException e) {
        String what = e instanceof java.net.http.HttpTimeoutException ? "timed out"
                : e instanceof java.net.ConnectException ? "refused the connection or is unreachable"
                : "failed (" + e.getClass().getSimpleName() + ")";
        return new UpdateFailure(UpdateErrorCodes.UPDATE_SOURCE_UNAVAILABLE, "fetching " + printable(url) + " "
                + what);
    }

    private static String printable(URI url) {
        return url.getScheme() + "://" + url.getRawAuthority() + (url.getRawPath() == null ? "" : url.getRawPath());
    }

    /** -1, 0 or 1 as version {@code a} is older than, equal to or newer than {@code b} (X.Y.Z; others are oldest). */
    static int compare(String a, String b) {
        long[] x = parts(a);
        long[] y = parts(b);
        for (int i = 0; i < 3; i++) {
            int c = Long.compare(x[i], y[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static long[] parts(String v) {
        if (v == null || !SEMVER.matcher(v).matches()) {
            return new long[] {-1, -1, -1};
        }
        String[] p = v.split("\\.");
        return new long[] {Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2])};
    }

    // ------------------------------------------------------------------------------------------------ download

    /** Downloads the package to {@code file} (at most the configured size) and returns its SHA-256 in hex. */
    private String download(Manifest m, Path file) throws UpdateFailure, IOException, InterruptedException {
        long max = settings.maxPackageBytes();
        if (m.size() != null && m.size() > max) {
            throw tooLarge(m.size(), max);
        }
        job.progress("downloading", 0, "downloading " + m.version());
        job.log("meta", "downloading " + printable(m.url()));
        HttpResponse<InputStream> res;
        try {
            res = http.send(HttpRequest.newBuilder(m.url()).timeout(settings.timeout()).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw unreachable(m.url(), e);
        }
        MessageDigest sha = sha256();
        long total;
        int lastPercent = 0;
        try (InputStream in = res.body(); BodyDeadline deadline = BodyDeadline.watch(in, settings.timeout())) {
            if (res.statusCode() != 200) {
                throw new UpdateFailure(UpdateErrorCodes.UPDATE_SOURCE_UNAVAILABLE, "the package at "
                        + printable(m.url()) + " answered HTTP " + res.statusCode());
            }
            long announced = res.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (announced > max) {
                throw tooLarge(announced, max);
            }
            long expected = m.size() != null ? m.size() : announced;
            total = 0;
            byte[] buf = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                int n;
                while (true) {
                    try {
                        n = in.read(buf);
                    } catch (IOException e) {
                        throw deadline.expired() ? tooSlow(m.url()) : unreachable(m.url(), e);
                    }
                    if (n < 0) {
                        break;
                    }
                    total += n;
                    if (total > max) {
                        throw tooLarge(total, max);
                    }
                    sha.update(buf, 0, n);
                    out.write(buf, 0, n);
                    if (expected > 0) {
                        int percent = (int) Math.min(100, total * 100 / expected);
                        if (percent >= lastPercent + 10) {
                            lastPercent = percent - percent % 10;
                            job.progress("downloading", lastPercent, null);
                        }
                    }
                }
            }
        }
        if (m.size() != null && m.size() != total) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_CHECKSUM_MISMATCH, "the package has " + total
                    + " bytes, the manifest says " + m.size() + "; nothing was installed");
        }
        if (lastPercent < 100) {
            job.progress("downloading", 100, null);
        }
        job.log("meta", "downloaded " + total + " bytes");
        return HexFormat.of().formatHex(sha.digest());
    }

    private static UpdateFailure tooLarge(long size, long max) {
        return new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_TOO_LARGE, "the package has " + size
                + " bytes, more than the limit of " + max + " (--update-max-bytes)");
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------------------------------------ unpack

    /**
     * Unpacks {@code zip} into {@code dir} (created) and returns the folder holding {@code workspace-server.jar}:
     * {@code dir} itself, or its only subfolder when the package wraps everything in one.
     */
    private Path unpack(Path zip, Path dir) throws UpdateFailure, IOException {
        Files.createDirectory(dir);
        long limit = settings.maxPackageBytes() * 4;
        long written = 0;
        int files = 0;
        try (ZipFile z = new ZipFile(zip.toFile())) {
            Enumeration<? extends ZipEntry> entries = z.entries();
            int count = 0;
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                if (++count > MAX_ENTRIES) {
                    throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_TOO_LARGE, "the package has more than "
                            + MAX_ENTRIES + " entries");
                }
                Path dest = entryPath(dir, e.getName());
                if (e.isDirectory()) {
                    Files.createDirectories(dest);
                    continue;
                }
                Files.createDirectories(dest.getParent());
                try (InputStream in = z.getInputStream(e); OutputStream out = Files.newOutputStream(dest,
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    byte[] buf = new byte[64 * 1024];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        written += n;
                        if (written > limit) {
                            throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_TOO_LARGE, "the package unpacks "
                                    + "to more than " + limit + " bytes");
                        }
                        out.write(buf, 0, n);
                    }
                }
                files++;
            }
        } catch (ZipException | FileAlreadyExistsException | NotDirectoryException e) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_INVALID, "the package is not a valid zip archive"
                    + (e instanceof ZipException ? "" : " (an entry is given twice, or as a file and a folder)"));
        }
        job.log("meta", "unpacked " + files + " files (" + written + " bytes)");
        if (Files.isRegularFile(dir.resolve(SERVER_JAR), LinkOption.NOFOLLOW_LINKS)) {
            return dir;
        }
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(children::add);
        }
        if (children.size() == 1 && Files.isRegularFile(children.getFirst().resolve(SERVER_JAR),
                LinkOption.NOFOLLOW_LINKS)) {
            return children.getFirst();
        }
        throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_INVALID, "the package holds no " + SERVER_JAR
                + " (at its top, or in its only folder)");
    }

    /** Where entry {@code name} goes inside {@code dir}; refused when it would land anywhere else. */
    static Path entryPath(Path dir, String name) throws UpdateFailure {
        if (name.isEmpty() || name.indexOf('\0') >= 0 || name.indexOf('\\') >= 0 || name.startsWith("/")
                || name.matches("^[A-Za-z]:.*")) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_INVALID, "the package has an entry with an "
                    + "absolute or malformed name");
        }
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_INVALID, "the package has an entry that "
                        + "leaves its folder (..)");
            }
        }
        Path dest = dir.resolve(name).normalize();
        if (!dest.startsWith(dir) || dest.equals(dir)) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_PACKAGE_INVALID, "the package has an entry that leaves "
                    + "its folder");
        }
        return dest;
    }

    // ------------------------------------------------------------------------------------------------ switch

    /** The version {@code current} points at, or null when there is no such link. */
    static String currentVersion(Path runtime) {
        Path link = runtime.resolve("current");
        if (!Files.isSymbolicLink(link)) {
            return null;
        }
        try {
            Path target = Files.readSymbolicLink(link).getFileName();
            return target == null ? null : target.toString();
        } catch (IOException e) {
            return null;
        }
    }

    /** Points {@code current} at {@code versions/<version>}: a new link renamed over the old one (atomic). */
    private static void swapCurrent(Path runtime, String tag, String version) throws IOException {
        Path link = runtime.resolve("current");
        Path tmp = runtime.resolve(".current-" + tag);
        Files.createSymbolicLink(tmp, Path.of("versions", version));
        try {
            Files.move(tmp, link, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** Removes installed versions other than {@code keep} and {@code previous}. */
    private void prune(Path versions, String keep, String previous) {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(versions)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (SEMVER.matcher(name).matches() && !name.equals(keep) && !name.equals(previous)) {
                    deleteTree(p);
                    job.log("meta", "removed old version " + name);
                }
            }
        } catch (IOException e) {
            job.log("meta", "could not remove old versions (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Removes what a crashed update left: {@code .download-*}, {@code .unpack-*}, {@code .old-*}, {@code .current-*}. */
    private static void removeLeftovers(Path runtime, Path versions) throws IOException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(versions, ".{download,unpack,old}-*")) {
            for (Path p : s) {
                deleteTree(p);
            }
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(runtime, ".current-*")) {
            for (Path p : s) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void createPrivateDirectories(Path dir) throws IOException {
        Path runtime = dir.getParent();
        if (!Files.exists(runtime)) {
            Files.createDirectories(runtime);
            try {
                Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system
            }
        }
        Files.createDirectories(dir);
    }

    /** Deletes {@code p} and everything below it; links are removed, never followed. */
    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(p)) {
                for (Path c : s) {
                    deleteTree(c);
                }
            }
        }
        Files.deleteIfExists(p);
    }
}
