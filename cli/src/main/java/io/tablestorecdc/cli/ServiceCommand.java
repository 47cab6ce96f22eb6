package io.tablestorecdc.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that talks to the instance: the shared options, then one piece of work. */
abstract class ServiceCommand implements Callable<Integer> {

    @Mixin ConnectionOptions connection;

    @Spec CommandSpec spec;

    final Clock clock;

    ServiceCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public final Integer call() {
        validate();
        try (Service service = connection.open(clock)) {
            return run(service, spec.commandLine().getOut());
        }
    }

    /** Checks the options before anything is sent. */
    void validate() {}

    abstract int run(Service service, PrintWriter out);
}
