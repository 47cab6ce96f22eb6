package io.tablestorecdc.cli;

import picocli.CommandLine.Option;

/** The {@code --table} and {@code --tunnel} options, declared once for every command. */
final class TargetOptions {

    private TargetOptions() {}

    /** {@code --table}: the data table a command acts on. */
    static final class Table {
        @Option(names = "--table", required = true, description = "The data table.")
        String name;
    }

    /** {@code --tunnel}: the tunnel a command acts on. */
    static final class Tunnel {
        @Option(names = "--tunnel", required = true, description = "The tunnel name.")
        String name;
    }
}
