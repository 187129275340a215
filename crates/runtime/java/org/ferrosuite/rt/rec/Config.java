package org.ferrosuite.rt.rec;

import java.util.ArrayList;
import java.util.List;

/** The recording's settings, parsed from the agent arguments (see {@link Agent}). */
final class Config {
    /** Packages never recorded (mirrors the Rust side's {@code NEVER_RECORDED}). */
    private static final String[] NEVER = {
        "java/", "javax/", "jdk/", "sun/", "com/sun/", "org/ferrosuite/", "org/junit/", "org/mockito/",
    };

    int port;
    String token = "";
    final List<String> include = new ArrayList<String>();
    final List<String> exclude = new ArrayList<String>();
    int maxPerMethod = 100;
    int depth = 3;
    int values = 100;
    int strings = 65536;
    int arrays = 256;
    int events = 200;
    /** Bytes of a file (or of console input) a call's record carries at most. */
    int files = 1 << 20;

    static Config parse(String args) {
        Config c = new Config();
        String[] parts = args == null ? new String[0] : args.split(";");
        if (parts.length < 2) {
            throw new IllegalArgumentException("agent arguments: port;token;...");
        }
        c.port = Integer.parseInt(parts[0]);
        c.token = parts[1];
        for (int i = 2; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq < 0) {
                continue;
            }
            String k = parts[i].substring(0, eq);
            String v = parts[i].substring(eq + 1);
            if (k.equals("include") || k.equals("exclude")) {
                for (String p : v.split(",")) {
                    if (!p.isEmpty()) {
                        (k.equals("include") ? c.include : c.exclude).add(p.replace('.', '/'));
                    }
                }
            } else if (k.equals("max")) {
                c.maxPerMethod = Integer.parseInt(v);
            } else if (k.equals("depth")) {
                c.depth = Integer.parseInt(v);
            } else if (k.equals("values")) {
                c.values = Integer.parseInt(v);
            } else if (k.equals("strings")) {
                c.strings = Integer.parseInt(v);
            } else if (k.equals("arrays")) {
                c.arrays = Integer.parseInt(v);
            } else if (k.equals("events")) {
                c.events = Integer.parseInt(v);
            } else if (k.equals("files")) {
                c.files = Integer.parseInt(v);
            }
        }
        return c;
    }

    /** Whether the class (internal name) is sent for instrumentation. */
    boolean accepts(String internal) {
        for (String p : NEVER) {
            if (internal.startsWith(p)) {
                return false;
            }
        }
        for (String p : exclude) {
            if (internal.startsWith(p)) {
                return false;
            }
        }
        if (include.isEmpty()) {
            return true;
        }
        for (String p : include) {
            if (internal.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
