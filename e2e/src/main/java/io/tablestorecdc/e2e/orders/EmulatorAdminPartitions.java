package io.tablestorecdc.e2e.orders;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Splits and merges through the admin HTTP routes of a standalone tablestore-emulator, so the demo
 * can reshard a table it reaches only by endpoint.
 */
public final class EmulatorAdminPartitions implements PartitionControl {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final URI endpoint;
    private final HttpClient http;

    private EmulatorAdminPartitions(URI endpoint, HttpClient http) {
        this.endpoint = endpoint;
        this.http = http;
    }

    /**
     * The admin routes of the server at {@code endpoint}, when it is a tablestore-emulator (it
     * answers {@code GET /_emulator/faults}); empty for any other server.
     */
    public static Optional<PartitionControl> at(String endpoint) {
        URI base = URI.create(endpoint.endsWith("/") ? endpoint : endpoint + "/");
        HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        try {
            HttpResponse<String> answer =
                    http.send(
                            HttpRequest.newBuilder(base.resolve("_emulator/faults"))
                                    .timeout(TIMEOUT)
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() == 200
                    ? Optional.of(new EmulatorAdminPartitions(base, http))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public List<String> split(String table, String orderId) {
        return partitionIds(post("split", table, orderId));
    }

    @Override
    public String merge(String table, String orderId) {
        return partitionIds(post("merge", table, orderId)).get(0);
    }

    private String post(String route, String table, String orderId) {
        String body =
                String.format(
                        "{\"table\":\"%s\",\"at\":{\"%s\":\"%s\"}}",
                        table, OrdersTable.ORDER_ID, orderId);
        try {
            HttpResponse<String> answer =
                    http.send(
                            HttpRequest.newBuilder(endpoint.resolve("_emulator/" + route))
                                    .timeout(TIMEOUT)
                                    .POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException(
                        "The emulator refused to " + route + " " + table + ": " + answer.body());
            }
            return answer.body();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Could not reach the emulator's admin route to " + route + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while asking the emulator to " + route);
        }
    }

    /** {@code ["p-1","p-2"]} to its ids. */
    static List<String> partitionIds(String json) {
        String inner = json.trim().replaceAll("^\\[|\\]$", "");
        return Arrays.stream(inner.split(","))
                .map(s -> s.trim().replace("\"", ""))
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
