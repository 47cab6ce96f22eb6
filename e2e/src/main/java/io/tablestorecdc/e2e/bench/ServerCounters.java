package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the emulator has counted since it started: requests by action, and the rows written to and
 * deleted from the meta table (and how many it holds). Differences between two readings are what a
 * consumer asked of the server in between (nothing else writes while one is measured). Read in this
 * JVM for an embedded emulator, over its admin routes for one in its own process.
 */
interface ServerCounters {

    /** Rows written to and deleted from the meta table since the emulator started. */
    record MetaWrites(long written, long deleted) {}

    RequestCounts requests();

    /** The meta table's write counters, read together and without scanning the table. */
    MetaWrites metaWrites();

    /**
     * Rows the meta table holds now (0 before it exists): what purging leaves behind. Scans the
     * table: read it at the start and end of a measurement, not per batch.
     */
    long metaLiveRows();

    /** Counters of an emulator in this JVM. */
    static ServerCounters embedded(TablestoreEmulator emulator, String metaTable) {
        return new ServerCounters() {
            @Override
            public RequestCounts requests() {
                return RequestCounts.of(emulator.server());
            }

            @Override
            public MetaWrites metaWrites() {
                return writes(emulator.rowCounts().of(metaTable, false));
            }

            @Override
            public long metaLiveRows() {
                return number(emulator.rowCounts().of(metaTable), "rows");
            }
        };
    }

    /**
     * Counters of an emulator in another process, read from {@code GET /_emulator/requests} and
     * {@code GET /_emulator/rows?table=<metaTable>} (tablestore-emulator README).
     */
    static ServerCounters overHttp(String endpoint, String metaTable) {
        HttpClient http = HttpClient.newHttpClient();
        String rowsRoute = "rows?table=" + URLEncoder.encode(metaTable, StandardCharsets.UTF_8);
        String writesRoute = rowsRoute + "&live=false";
        return new ServerCounters() {
            @Override
            public RequestCounts requests() {
                @SuppressWarnings("unchecked")
                Map<String, Object> byAction =
                        (Map<String, Object>) get(http, endpoint, "requests").get("requests");
                Map<String, Long> counts = new LinkedHashMap<>();
                byAction.forEach((action, n) -> counts.put(action, ((Number) n).longValue()));
                return new RequestCounts(counts);
            }

            @Override
            public MetaWrites metaWrites() {
                return writes(get(http, endpoint, writesRoute));
            }

            @Override
            public long metaLiveRows() {
                return number(get(http, endpoint, rowsRoute), "rows");
            }
        };
    }

    private static MetaWrites writes(Map<String, Object> json) {
        return new MetaWrites(number(json, "written"), number(json, "deleted"));
    }

    private static long number(Map<String, Object> json, String field) {
        return ((Number) json.get(field)).longValue();
    }

    private static Map<String, Object> get(HttpClient http, String endpoint, String route) {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(endpoint + "/_emulator/" + route)).GET().build();
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException(
                        "The emulator answered /_emulator/"
                                + route
                                + " with HTTP "
                                + answer.statusCode()
                                + ": "
                                + answer.body());
            }
            return Json.parseObject(answer.body());
        } catch (IOException e) {
            throw new IllegalStateException("Could not read /_emulator/" + route, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted reading /_emulator/" + route, e);
        }
    }
}
