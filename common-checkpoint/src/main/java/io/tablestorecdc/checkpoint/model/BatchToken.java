package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The placeholder offset that names the end of one batch (Spark micro-batch or Flink checkpoint).
 *
 * <p>A CDC stream has no seek, so an engine stores only this token; the meta table holds the
 * positions of every channel under it. Its persisted forms are the bare UUID string and a versioned
 * JSON object {@code {"token":"<uuid>","version":1}}.
 */
@Internal
public final class BatchToken implements Comparable<BatchToken> {

    /** Version of the JSON form written by {@link #toJson()}. */
    public static final int JSON_VERSION = 1;

    private static final Pattern JSON_FORM =
            Pattern.compile(
                    "\\s*\\{\\s*\"token\"\\s*:\\s*\"([^\"]*)\"\\s*,\\s*\"version\"\\s*:\\s*(-?\\d+)\\s*}\\s*");
    private static final Pattern UUID_FORM =
            Pattern.compile(
                    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final String VALID_EXAMPLE =
            "a UUID such as 3f2504e0-4f89-41d3-9a0c-0305e82c3301 or the JSON form"
                    + " {\"token\":\"3f2504e0-4f89-41d3-9a0c-0305e82c3301\",\"version\":1}";

    private final UUID id;

    private BatchToken(UUID id) {
        this.id = Objects.requireNonNull(id, "id");
    }

    /** A fresh, random token for a new batch end. */
    public static BatchToken random() {
        return new BatchToken(UUID.randomUUID());
    }

    public static BatchToken of(UUID id) {
        return new BatchToken(id);
    }

    /** Parses the UUID string form. */
    public static BatchToken parse(String text) {
        if (text == null || !UUID_FORM.matcher(text.trim()).matches()) {
            throw new IllegalArgumentException(
                    "Invalid batch token '" + abbreviate(text) + "': expected " + VALID_EXAMPLE);
        }
        return new BatchToken(UUID.fromString(text.trim()));
    }

    /** Parses the versioned JSON form; rejects versions this build does not know. */
    public static BatchToken fromJson(String json) {
        Matcher m = json == null ? null : JSON_FORM.matcher(json);
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException(
                    "Invalid batch token JSON '"
                            + abbreviate(json)
                            + "': expected "
                            + VALID_EXAMPLE);
        }
        int version = Integer.parseInt(m.group(2));
        if (version != JSON_VERSION) {
            throw new IllegalArgumentException(
                    "Batch token JSON has version "
                            + version
                            + " but this build reads only version "
                            + JSON_VERSION
                            + "; the checkpoint was written by a newer tablestore-cdc: upgrade the"
                            + " connector to read it");
        }
        return parse(m.group(1));
    }

    public String toJson() {
        return "{\"token\":\"" + id + "\",\"version\":" + JSON_VERSION + "}";
    }

    public UUID id() {
        return id;
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "null";
        }
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }

    @Override
    public int compareTo(BatchToken other) {
        return id.compareTo(other.id);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchToken && ((BatchToken) o).id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    /** The UUID string form, which {@link #parse} reads back. */
    @Override
    public String toString() {
        return id.toString();
    }
}
