package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.MetaTableException;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code tablestore-cdc}: the operators' command line over the connectors' tunnels and meta table.
 * Exit codes: 0 fine, 1 a check failed, 2 bad usage, 3 the service refused.
 */
@Command(
        name = "tablestore-cdc",
        mixinStandardHelpOptions = true,
        versionProvider = TablestoreCdcCli.Version.class,
        description = "Shows and repairs the state of tablestore-cdc Spark queries and Flink jobs.",
        subcommands = {
            TunnelsCommand.class,
            DescribeCommand.class,
            LagCommand.class,
            LeaseCommand.class,
            MetaCommand.class,
            ReprocessCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:fine",
            "1:a check failed (lag above --max-lag, a lease still renewed, rows of a live owner)",
            "2:bad usage (a missing or invalid option)",
            "3:the service refused (credentials, a missing table or tunnel, the network)"
        })
public final class TablestoreCdcCli implements Runnable {

    /** Everything went as asked. */
    public static final int OK = 0;

    /** A check failed: lag above the threshold, or a refusal to act on live state. */
    public static final int CHECK_FAILED = 1;

    /** The command line was wrong. */
    public static final int USAGE = 2;

    /** The service refused or could not be reached. */
    public static final int SERVICE_ERROR = 3;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Name a command.");
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, err, Clock.systemUTC()));
    }

    /** Runs one command line and returns its exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Clock clock) {
        return run(args, out, err, clock, System.getenv());
    }

    /** Runs one command line with {@code env} as its environment and returns its exit code. */
    public static int run(
            String[] args, PrintWriter out, PrintWriter err, Clock clock, Map<String, String> env) {
        CommandLine line = new CommandLine(new TablestoreCdcCli(), new Factory(clock, env));
        line.setOut(out);
        line.setErr(err);
        line.setExecutionExceptionHandler(TablestoreCdcCli::onError);
        line.setParameterExceptionHandler(TablestoreCdcCli::onUsageError);
        int code = line.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /**
     * Prints what {@code describe} prints, for a program that already holds the endpoint and its
     * credentials (the demo prints it at the end of its run).
     *
     * @return the greatest channel lag of the report printed (empty when no channel's lag is
     *     known): the same reading as the lines printed, so a caller waiting for a lag prints the
     *     report that showed it
     * @throws io.tablestorecdc.checkpoint.tunnel.TunnelException when the tunnel cannot be read
     * @throws MetaTableException when the meta table cannot be read
     */
    public static Optional<Duration> describe(
            TablestoreEndpoint endpoint,
            String metaTable,
            String table,
            String tunnel,
            PrintWriter out) {
        Clock clock = Clock.systemUTC();
        try (Service service = Service.open(endpoint, metaTable, clock)) {
            TunnelReport report = TunnelReport.read(service, table, tunnel, clock.instant());
            DescribeCommand.print(out, report, service.metaTable());
            out.flush();
            return report.maxLag();
        }
    }

    /**
     * The greatest channel lag {@code describe} and {@code lag} show for the tunnel (empty when no
     * channel's lag is known), for a program that already holds the endpoint.
     */
    public static Optional<Duration> maxLag(
            TablestoreEndpoint endpoint, String metaTable, String table, String tunnel) {
        Clock clock = Clock.systemUTC();
        try (Service service = Service.open(endpoint, metaTable, clock)) {
            return TunnelReport.read(service, table, tunnel, clock.instant()).maxLag();
        }
    }

    /**
     * Usage errors name unknown options but never echo their values: a secret typed as an option
     * value would otherwise be printed.
     */
    private static int onUsageError(CommandLine.ParameterException e, String[] args) {
        CommandLine line = e.getCommandLine();
        PrintWriter err = line.getErr();
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            List<String> options =
                    unmatched.getUnmatched().stream().filter(a -> a.startsWith("-")).toList();
            err.println(
                    "Unknown option or argument"
                            + (options.isEmpty() ? "" : ": " + String.join(", ", options))
                            + ". Secrets are never options: use --credentials-file, the"
                            + " ALIBABA_CLOUD_* environment variables or --credentials-provider.");
        } else {
            err.println(e.getMessage());
        }
        line.usage(err);
        return USAGE;
    }

    private static int onError(Exception e, CommandLine line, CommandLine.ParseResult parsed) {
        PrintWriter err = line.getErr();
        if (e instanceof CheckFailedException) {
            err.println(e.getMessage());
            return CHECK_FAILED;
        }
        if (e instanceof UsageException || e instanceof IllegalArgumentException) {
            err.println("Error: " + e.getMessage());
            err.println("See '" + line.getCommandSpec().qualifiedName() + " --help'.");
            return USAGE;
        }
        // A tunnel or meta-table refusal, or anything else from the services (the network).
        err.println("Error: " + ServiceErrors.explain(e));
        return SERVICE_ERROR;
    }

    /** Builds commands with the clock they read "now" from. */
    private static final class Factory implements CommandLine.IFactory {
        private final Clock clock;
        private final Map<String, String> env;

        Factory(Clock clock, Map<String, String> env) {
            this.clock = clock;
            this.env = env;
        }

        @Override
        public <K> K create(Class<K> type) throws Exception {
            if (type == ConnectionOptions.class) {
                return type.cast(new ConnectionOptions(env));
            }
            try {
                Constructor<K> withClock = type.getDeclaredConstructor(Clock.class);
                return withClock.newInstance(clock);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(type);
            }
        }
    }

    /** The version from the jar's manifest, when there is one. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = TablestoreCdcCli.class.getPackage().getImplementationVersion();
            return new String[] {"tablestore-cdc " + (version == null ? "(development)" : version)};
        }
    }
}
