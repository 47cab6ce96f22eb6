package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tablestorecdc.cli.TablestoreCdcCli;
import io.tablestorecdc.e2e.DemoTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The crash bed's tunnel as an operator sees it: {@code tablestore-cdc describe} and {@code lease}
 * run in this JVM, with the credentials in a file.
 */
final class TunnelOwner {

    /** One run of the command line: its exit code and output. */
    record Run(int exitCode, String out, String err) {}

    private final CrashBed bed;
    private final Path credentials;

    TunnelOwner(CrashBed bed) {
        this.bed = bed;
        DemoTarget target = bed.target();
        try {
            this.credentials =
                    Files.writeString(
                            bed.dir.resolve("tablestore.properties"),
                            "access.key.id="
                                    + target.accessKeyId()
                                    + "\naccess.key.secret="
                                    + target.accessKeySecret()
                                    + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code describe --json}. */
    JsonObject describe() {
        Run run = cli(Clock.systemUTC(), command("describe", "--json"));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return JsonParser.parseString(run.out()).getAsJsonObject();
    }

    /** The owner lease, if one is held (live or expired). */
    Optional<JsonObject> lease() {
        JsonElement owner = describe().get("owner");
        return owner == null || owner.isJsonNull()
                ? Optional.empty()
                : Optional.of(owner.getAsJsonObject());
    }

    /** The live owner's consumer id; fails if no live owner holds the lease. */
    String liveConsumer() {
        JsonObject owner = lease().orElseThrow(() -> new AssertionError("No owner lease"));
        assertThat(owner.get("state").getAsString()).isEqualTo("live");
        return owner.get("consumer").getAsString();
    }

    /** Whether a live owner holds the lease (none does before the first creates the meta table). */
    boolean isOwned() {
        Run run = cli(Clock.systemUTC(), command("describe", "--json"));
        if (run.exitCode() != 0 && run.err().contains("The meta table does not exist")) {
            return false;
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonElement owner = JsonParser.parseString(run.out()).getAsJsonObject().get("owner");
        return owner != null
                && !owner.isJsonNull()
                && "live".equals(owner.getAsJsonObject().get("state").getAsString());
    }

    List<String> command(String... words) {
        DemoTarget target = bed.target();
        List<String> args = new ArrayList<>(List.of(words));
        args.addAll(
                List.of(
                        "--endpoint", target.endpoint(),
                        "--instance", target.instanceName(),
                        "--credentials-file", credentials.toString(),
                        "--table", CrashBed.TABLE,
                        "--tunnel", CrashBed.TUNNEL));
        return args;
    }

    static Run cli(Clock clock, List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                TablestoreCdcCli.run(
                        args.toArray(String[]::new),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        clock);
        return new Run(code, out.toString(), err.toString());
    }
}
