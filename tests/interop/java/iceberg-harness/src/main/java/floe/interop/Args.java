package floe.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line arguments: positionals, and `--name value` options (repeatable). Every option
 * takes one value; an unknown option is a usage error.
 */
final class Args {
  static final class UsageError extends RuntimeException {
    UsageError(String message) {
      super(message);
    }
  }

  final List<String> positional = new ArrayList<>();
  private final Map<String, List<String>> options = new HashMap<>();

  Args(String[] argv, int from, Set<String> known) {
    for (int i = from; i < argv.length; i++) {
      String a = argv[i];
      if (a.startsWith("--")) {
        String name = a.substring(2);
        String value;
        int eq = name.indexOf('=');
        if (eq >= 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        } else {
          if (i + 1 >= argv.length) {
            throw new UsageError("option --" + name + " needs a value");
          }
          value = argv[++i];
        }
        if (!known.contains(name)) {
          throw new UsageError("unknown option --" + name);
        }
        options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
      } else {
        positional.add(a);
      }
    }
  }

  String get(String name) {
    List<String> v = options.get(name);
    return v == null ? null : v.get(v.size() - 1);
  }

  String require(String name) {
    String v = get(name);
    if (v == null) {
      throw new UsageError("option --" + name + " is required");
    }
    return v;
  }

  long getLong(String name, long dflt) {
    String v = get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new UsageError("option --" + name + " needs an integer, got " + v);
    }
  }

  /** Repeated `--name k=v` options as an ordered map. */
  Map<String, String> keyValues(String name) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String kv : options.getOrDefault(name, List.of())) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new UsageError("option --" + name + " needs key=value, got " + kv);
      }
      out.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return out;
  }

  String onePositional(String what) {
    if (positional.size() != 1) {
      throw new UsageError("expected one " + what + ", got " + positional);
    }
    return positional.get(0);
  }
}
