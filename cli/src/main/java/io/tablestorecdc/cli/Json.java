package io.tablestorecdc.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The {@code --json} documents: each an object with {@code "schema"} (which document) and {@code
 * "version"} (bumped when a field changes meaning or goes; new fields may appear in any version).
 * Instants are ISO-8601 UTC strings, durations milliseconds, absent values {@code null}.
 */
final class Json {

    /** The version of every document this build writes. */
    static final int VERSION = 1;

    private static final Gson GSON =
            new GsonBuilder().serializeNulls().disableHtmlEscaping().setPrettyPrinting().create();

    private Json() {}

    static JsonObject document(String schema) {
        JsonObject doc = new JsonObject();
        doc.addProperty("schema", "tablestore-cdc." + schema);
        doc.addProperty("version", VERSION);
        return doc;
    }

    /**
     * The head of a document of several tables: the tunnel name, when it was read, and the pattern
     * that selected them ({@code null} for a list).
     */
    static void source(JsonObject doc, SourceReport source, TableSelection selection) {
        doc.addProperty("tunnel", source.tunnel());
        doc.addProperty("read_at", source.now().toString());
        doc.add("table_pattern", text(selection.pattern()));
        doc.add("table_exclude", text(selection.exclude()));
    }

    /** The greatest lag over several tables and where it is ({@code null}s when none is known). */
    static void maxLag(JsonObject doc, SourceReport source) {
        Optional<SourceReport.Lagging> max = source.maxLag();
        doc.add("max_lag_ms", millis(max.map(SourceReport.Lagging::lag)));
        doc.add("max_lag_table", text(max.map(SourceReport.Lagging::table)));
        doc.add("max_lag_channel", text(max.map(SourceReport.Lagging::channel)));
    }

    static String print(JsonObject doc) {
        return GSON.toJson(doc);
    }

    static JsonElement instant(Optional<Instant> instant) {
        return instant.<JsonElement>map(i -> new JsonPrimitive(i.toString()))
                .orElse(JsonNull.INSTANCE);
    }

    static JsonElement millis(Optional<Duration> duration) {
        return duration.<JsonElement>map(d -> new JsonPrimitive(d.toMillis()))
                .orElse(JsonNull.INSTANCE);
    }

    static JsonElement text(Optional<String> text) {
        return text.<JsonElement>map(JsonPrimitive::new).orElse(JsonNull.INSTANCE);
    }
}
