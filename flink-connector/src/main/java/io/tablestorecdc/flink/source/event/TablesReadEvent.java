package io.tablestorecdc.flink.source.event;

import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader, in a source of several tables: the tables the source reads now, sent when a
 * reader registers and whenever the set changes (a table found, dropped, or no longer selected),
 * always before the splits of a table new to it. A reader ends the splits of any other table as
 * finished without reading them: their tunnel clients are closed.
 *
 * @param tables the table names
 */
@Internal
public record TablesReadEvent(Set<String> tables) implements SourceEvent {

    private static final long serialVersionUID = 1L;

    public TablesReadEvent {
        tables = Set.copyOf(tables);
    }
}
