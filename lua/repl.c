/* The interactive prompt of `cleave` with no arguments.
 *
 * Readline is used through its callback interface: we wait for keys with
 * pselect, so that Ctrl-C at the prompt is only a flag we notice between
 * keys (the line is dropped and a fresh prompt shown) and never reaches
 * readline's or the default SIGINT handler. While a chunk runs, Ctrl-C
 * belongs to cl_lua_interrupt_install, which stops a model run at the next
 * step boundary. SIGINT and SIGWINCH stay blocked at all other times, so a
 * signal can only arrive where it is expected. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include <lauxlib.h>

#include "cleave_lua.h"
#include "repl.h"

#ifndef CLEAVE_VERSION
#define CLEAVE_VERSION "0.0.0"
#endif

#define PROMPT "> "
#define PROMPT_MORE ">> "
#define CHUNK_NAME "=stdin"
#define HISTORY_MAX 1000
#define TABLE_PREVIEW_MAX 8  /* entries a plain table shows when printed */
#define STRING_PREVIEW_MAX 40 /* characters of a string shown inside a table */
#define INDEX_DEPTH_MAX 4     /* __index tables followed when completing */

/* Word breaks for completion: '.' and ':' are missing on purpose, so that
 * "cl.io.cs" or "model:ru" reach the completer as one word. */
#define WORD_BREAKS " \t\n\"'`<>=;|&{}()[],+-*/%^~#"

struct repl {
  lua_State *L;
  char history_path[4096]; /* empty: history is kept in memory only */
  sigset_t outer_mask;     /* the caller's mask, restored at the end */
  sigset_t open_mask;      /* in effect while waiting for a key and while a chunk runs */
  struct sigaction outer_sigint, outer_sigwinch;
};

enum read_status { READ_LINE, READ_EOF, READ_INTERRUPTED };
enum chunk_status { CHUNK_READY, CHUNK_FAILED, CHUNK_CANCELLED, CHUNK_EOF };

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t sigint_seen, sigwinch_seen;

static void note_sigint(int sig) {
  (void)sig;
  sigint_seen = 1;
}

static void note_sigwinch(int sig) {
  (void)sig;
  sigwinch_seen = 1;
}

/* No SA_RESTART: the signal must wake pselect up. */
static void set_handler(int sig, void (*handler)(int), struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, old);
}

static sigset_t our_signals(void) {
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, SIGINT);
  sigaddset(&ours, SIGWINCH);
  return ours;
}

static void block_our_signals(void) {
  sigset_t ours = our_signals();
  sigprocmask(SIG_BLOCK, &ours, NULL);
}

static void signals_take(struct repl *r) {
  sigset_t ours = our_signals();
  sigprocmask(SIG_BLOCK, &ours, &r->outer_mask);
  r->open_mask = r->outer_mask;
  sigdelset(&r->open_mask, SIGINT);
  sigdelset(&r->open_mask, SIGWINCH);
  set_handler(SIGINT, note_sigint, &r->outer_sigint);
  set_handler(SIGWINCH, note_sigwinch, &r->outer_sigwinch);
}

static void signals_give_back(struct repl *r) {
  sigaction(SIGINT, &r->outer_sigint, NULL);
  sigaction(SIGWINCH, &r->outer_sigwinch, NULL);
  sigprocmask(SIG_SETMASK, &r->outer_mask, NULL);
}

/* ---- history ------------------------------------------------------------ */

static void locate_history(struct repl *r) {
  const char *path = getenv("CLEAVE_HISTORY");
  const char *home = getenv("HOME");
  r->history_path[0] = '\0';
  if (path && *path) snprintf(r->history_path, sizeof r->history_path, "%s", path);
  else if (home && *home) snprintf(r->history_path, sizeof r->history_path, "%s/.cleave_history", home);
}

/* A missing or unwritable history file is not an error: history then lives
 * in memory for this session only. */
static void history_open(struct repl *r) {
  stifle_history(HISTORY_MAX);
  locate_history(r);
  if (!r->history_path[0]) return;
  read_history(r->history_path);
  history_truncate_file(r->history_path, HISTORY_MAX);
  /* append_history needs an existing file */
  int fd = open(r->history_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd >= 0) close(fd);
}

static int is_blank(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return *s == '\0';
}

/* Each entered line is saved at once, so a crash or os.exit loses nothing. */
static void history_remember(struct repl *r, const char *line) {
  if (is_blank(line)) return;
  HIST_ENTRY *last = history_get(history_base + history_length - 1);
  if (last && strcmp(last->line, line) == 0) return;
  add_history(line);
  if (r->history_path[0]) append_history(1, r->history_path);
}

static void history_close(struct repl *r) {
  if (r->history_path[0]) history_truncate_file(r->history_path, HISTORY_MAX);
}

/* ---- completion --------------------------------------------------------- */

static lua_State *completion_state; /* readline's callbacks carry no user data */
static lua_Integer completion_next;

static const char *const lua_keywords[] = {
    "and",   "break", "do",  "else", "elseif", "end",    "false",  "for",  "function", "goto",  "if",
    "in",    "local", "nil", "not",  "or",     "repeat", "return", "then", "true",     "until", "while",
    NULL};

struct completion {
  const char *prefix; /* the text up to and including the last '.' or ':' */
  size_t prefix_len;
  const char *partial; /* the part of a name being completed */
  int methods_only;    /* after ':' only functions make sense */
  lua_State *L;
  int hide_internal; /* leave out cleave's internal names */
  int internal;      /* stack index of cleave.internal (names that are not API), 0 if none */
};

#define CANDIDATES 2 /* stack index of the candidate list in collect_completions */

static int is_identifier(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_') return 0;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  return *s == '\0';
}

static void add_candidate(lua_State *L, const struct completion *c, const char *name) {
  lua_pushlstring(L, c->prefix, c->prefix_len);
  lua_pushstring(L, name);
  lua_concat(L, 2);
  lua_rawseti(L, CANDIDATES, (lua_Integer)lua_rawlen(L, CANDIDATES) + 1);
}

/* Is name one of cleave's internals: a metatable (ends in "_mt") or listed in cleave.internal? */
static int internal_name(const struct completion *c, const char *name) {
  if (!c->hide_internal) return 0;
  size_t len = strlen(name);
  if (len > 3 && strcmp(name + len - 3, "_mt") == 0) return 1;
  if (!c->internal) return 0;
  int listed = lua_getfield(c->L, c->internal, name) != LUA_TNIL;
  lua_pop(c->L, 1);
  return listed;
}

/* Names starting with "__" (metamethods) are offered only when asked for; internals never. */
static int name_wanted(const struct completion *c, const char *name) {
  size_t n = strlen(c->partial);
  if (strncmp(name, c->partial, n) != 0 || !is_identifier(name) || internal_name(c, name)) return 0;
  return strncmp(name, "__", 2) != 0 || strncmp(c->partial, "__", 2) == 0;
}

/* Adds the wanted string keys of the table at idx. */
static void add_keys(lua_State *L, const struct completion *c, int idx) {
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) == LUA_TSTRING && (!c->methods_only || lua_type(L, -1) == LUA_TFUNCTION)) {
      const char *name = lua_tostring(L, -2);
      if (name_wanted(c, name)) add_candidate(L, c, name);
    }
    lua_pop(L, 1);
  }
}

static int raw_field(lua_State *L, int idx, const char *name) {
  lua_pushstring(L, name);
  return lua_rawget(L, idx);
}

/* Adds the names of the value at idx: its keys when it is a table, those of
 * its metatable's __index table (objects written in Lua), and those of the
 * metatable's `methods` table (cleave's userdata such as fields). */
static void add_fields(lua_State *L, const struct completion *c, int idx, int depth) {
  if (lua_type(L, idx) == LUA_TTABLE) add_keys(L, c, idx);
  if (depth >= INDEX_DEPTH_MAX || !lua_getmetatable(L, idx)) return; /* depth also stops cycles */
  int mt = lua_gettop(L);
  if (raw_field(L, mt, "__index") == LUA_TTABLE) add_fields(L, c, lua_gettop(L), depth + 1);
  lua_pop(L, 1);
  if (raw_field(L, mt, "methods") == LUA_TTABLE) add_keys(L, c, lua_gettop(L));
  lua_pop(L, 2);
}

/* Pushes the value named by a dotted path of globals ("cl.io"), or returns 0
 * (pushing nothing) when the path is not a chain of plain names. Indexing
 * may run __index metamethods; the caller is protected. */
static int push_path(lua_State *L, const char *path, size_t len) {
  const char *end = path + len;
  lua_pushglobaltable(L);
  for (;;) {
    const char *dot = memchr(path, '.', (size_t)(end - path));
    const char *stop = dot ? dot : end;
    lua_pushlstring(L, path, (size_t)(stop - path));
    int t = lua_type(L, -2);
    if (!is_identifier(lua_tostring(L, -1)) || (t != LUA_TTABLE && t != LUA_TUSERDATA)) {
      lua_pop(L, 2);
      return 0;
    }
    lua_gettable(L, -2);
    lua_remove(L, -2);
    if (!dot) return 1;
    path = dot + 1;
  }
}

/* collect_completions(text) -> list of full candidates for the word text */
static int collect_completions(lua_State *L) {
  const char *text = luaL_checkstring(L, 1);
  lua_newtable(L); /* CANDIDATES */
  const char *sep = NULL;
  for (const char *p = text; *p; p++)
    if (*p == '.' || *p == ':') sep = p;
  struct completion c = {
      .prefix = text,
      .prefix_len = sep ? (size_t)(sep - text + 1) : 0,
      .partial = sep ? sep + 1 : text,
      .methods_only = sep && *sep == ':',
      .L = L,
  };
  /* inside tables only: a user's own globals are all offered */
  c.hide_internal = sep != NULL;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "cleave") == LUA_TTABLE && lua_getfield(L, -1, "internal") == LUA_TTABLE)
    c.internal = lua_gettop(L);
  if (!sep) {
    for (const char *const *k = lua_keywords; *k; k++)
      if (name_wanted(&c, *k)) add_candidate(L, &c, *k);
    lua_pushglobaltable(L);
  } else if (!push_path(L, text, (size_t)(sep - text))) {
    lua_settop(L, CANDIDATES);
    return 1;
  }
  add_fields(L, &c, lua_gettop(L), 0);
  lua_settop(L, CANDIDATES);
  return 1;
}

/* Readline's generator: hands out the candidate list on top of the stack. */
static char *next_completion(const char *text, int state) {
  (void)text;
  lua_State *L = completion_state;
  if (state == 0) completion_next = 0;
  lua_rawgeti(L, -1, ++completion_next);
  const char *s = lua_tostring(L, -1);
  char *copy = s ? strdup(s) : NULL;
  lua_pop(L, 1);
  return copy;
}

static char **complete(const char *text, int start, int end) {
  (void)start;
  (void)end;
  lua_State *L = completion_state;
  rl_attempted_completion_over = 1; /* no file names in Lua code */
  rl_completion_append_character = '\0';
  lua_pushcfunction(L, collect_completions);
  lua_pushstring(L, text);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    lua_pop(L, 1);
    return NULL;
  }
  char **matches = rl_completion_matches(text, next_completion);
  lua_pop(L, 1);
  return matches;
}

/* ---- reading lines ------------------------------------------------------ */

static char *accepted_line;
static int line_done;

static void accept_line(char *line) {
  accepted_line = line;
  line_done = 1;
  rl_callback_handler_remove(); /* the terminal goes back to normal while the chunk runs */
}

/* Shows "^C" like a shell, drops the half-typed line and leaves the cursor
 * on a fresh line for the next prompt. */
static void cancel_line(void) {
  sigint_seen = 0;
  rl_callback_sigcleanup(); /* leaves an incremental search or a multi-key command */
  rl_point = rl_end;
  rl_redisplay();
  rl_echo_signal_char(SIGINT);
  rl_free_line_state();
  rl_callback_handler_remove();
  rl_crlf();
  fflush(rl_outstream);
}

static int wait_for_key(const struct repl *r) {
  int fd = fileno(rl_instream);
  fd_set fds;
  FD_ZERO(&fds);
  FD_SET(fd, &fds);
  return pselect(fd + 1, &fds, NULL, NULL, NULL, &r->open_mask);
}

/* After Ctrl-D the cursor is still after the prompt. With bracketed paste
 * on, readline has already moved it to a new line (rl_deprep_terminal);
 * rl_eof_found is cleared because readline clears it only in readline(),
 * and while set every later rl_deprep_terminal prints an empty line. */
static void end_eof_line(void) {
  const char *paste = rl_variable_value("enable-bracketed-paste");
  if (!paste || strcmp(paste, "on") != 0) fputc('\n', stdout);
  rl_eof_found = 0;
}

/* Like readline(prompt), but Ctrl-C returns READ_INTERRUPTED. *line is
 * malloc'ed (READ_LINE only). */
static enum read_status read_line(const struct repl *r, const char *prompt, char **line) {
  set_handler(SIGINT, note_sigint, NULL); /* cl_lua_interrupt_remove left SIG_DFL */
  sigint_seen = 0;
  line_done = 0;
  accepted_line = NULL;
  fflush(stdout);
  using_history();
  rl_callback_handler_install(prompt, accept_line);
  while (!line_done) {
    if (sigwinch_seen) {
      sigwinch_seen = 0;
      rl_resize_terminal();
    }
    if (sigint_seen) {
      cancel_line();
      return READ_INTERRUPTED;
    }
    int ready = wait_for_key(r);
    if (ready > 0) {
      rl_callback_read_char();
    } else if (ready < 0 && errno != EINTR) {
      rl_callback_handler_remove();
      break;
    }
  }
  *line = accepted_line;
  if (!accepted_line) {
    end_eof_line();
    return READ_EOF;
  }
  return READ_LINE;
}

/* ---- compiling chunks --------------------------------------------------- */

/* A syntax error at the end of the text means the statement goes on. */
static int incomplete(lua_State *L, int status) {
  static const char mark[] = "<eof>";
  size_t len;
  const char *msg = lua_tolstring(L, -1, &len);
  return status == LUA_ERRSYNTAX && len >= sizeof mark - 1 && strcmp(msg + len - (sizeof mark - 1), mark) == 0;
}

/* Compiles "return LINE" so that expressions print their values, as lua.c
 * does; pushes the function only on success. */
static int load_as_expression(lua_State *L, const char *line) {
  const char *code = lua_pushfstring(L, "return %s;", line);
  int status = luaL_loadbufferx(L, code, strlen(code), CHUNK_NAME, "t");
  lua_remove(L, -2);
  if (status != LUA_OK) lua_pop(L, 1);
  return status == LUA_OK;
}

/* The code so far is on top; reads continuation lines until it compiles or
 * fails for another reason than its end. Leaves the function or the error. */
static enum chunk_status read_statement(struct repl *r) {
  lua_State *L = r->L;
  for (;;) {
    size_t len;
    const char *code = lua_tolstring(L, -1, &len);
    int status = luaL_loadbufferx(L, code, len, CHUNK_NAME, "t");
    if (!incomplete(L, status)) {
      lua_remove(L, -2);
      return status == LUA_OK ? CHUNK_READY : CHUNK_FAILED;
    }
    char *line;
    enum read_status rs = read_line(r, PROMPT_MORE, &line);
    if (rs == READ_EOF) { /* report the "... near <eof>" error */
      lua_remove(L, -2);
      return CHUNK_FAILED;
    }
    lua_pop(L, 1);
    if (rs == READ_INTERRUPTED) {
      lua_pop(L, 1);
      return CHUNK_CANCELLED;
    }
    history_remember(r, line);
    lua_pushliteral(L, "\n");
    lua_pushstring(L, line);
    free(line);
    lua_concat(L, 3);
  }
}

/* Reads one chunk. CHUNK_READY leaves the compiled function on the stack,
 * CHUNK_FAILED the error message, the others nothing. */
static enum chunk_status read_chunk(struct repl *r) {
  char *line;
  enum read_status rs = read_line(r, PROMPT, &line);
  if (rs != READ_LINE) return rs == READ_EOF ? CHUNK_EOF : CHUNK_CANCELLED;
  history_remember(r, line);
  int expression = load_as_expression(r->L, line);
  if (!expression) lua_pushstring(r->L, line);
  free(line);
  return expression ? CHUNK_READY : read_statement(r);
}

/* ---- running and printing ----------------------------------------------- */

static void report_error(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fflush(stdout);
  if (msg) fprintf(stderr, "%s\n", msg);
  else fprintf(stderr, "(error object is a %s value)\n", luaL_typename(L, -1));
  fflush(stderr);
  lua_pop(L, 1);
}

/* Calls the function below the nargs arguments on top, with a traceback
 * handler and Ctrl-C armed (so a long run, or a __tostring stuck in a loop,
 * can be stopped); its results or the error message replace it. */
static int call_interruptible(const struct repl *r, int nargs, int nresults) {
  lua_State *L = r->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, cl_lua_traceback);
  lua_insert(L, base);
  cl_lua_interrupt_install(L);
  sigprocmask(SIG_SETMASK, &r->open_mask, NULL);
  int status = lua_pcall(L, nargs, nresults, base);
  block_our_signals();
  cl_lua_interrupt_remove();
  lua_remove(L, base);
  return status;
}

static int is_plain_table(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return 0;
  if (luaL_getmetafield(L, idx, "__tostring") == LUA_TNIL) return 1;
  lua_pop(L, 1);
  return 0;
}

/* Quoted and kept on one line: newlines and other control bytes are escaped. */
static void write_string_preview(const char *s, size_t len) {
  fputc('"', stdout);
  for (size_t i = 0; i < len && i < STRING_PREVIEW_MAX; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '\n') fputs("\\n", stdout);
    else if (ch == '"' || ch == '\\') printf("\\%c", ch);
    else if (iscntrl(ch)) printf("\\%d", ch);
    else fputc(ch, stdout);
  }
  fputs(len > STRING_PREVIEW_MAX ? "...\"" : "\"", stdout);
}

/* One short word for a value inside a table: nested tables are not opened. */
static void write_value_preview(lua_State *L, int idx) {
  size_t len;
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: {
    const char *s = lua_tolstring(L, idx, &len);
    write_string_preview(s, len);
    return;
  }
  case LUA_TFUNCTION: fputs("function", stdout); return;
  case LUA_TTABLE:
    if (is_plain_table(L, idx)) {
      fputs("{...}", stdout);
      return;
    }
    break;
  default: break;
  }
  fputs(luaL_tolstring(L, idx, NULL), stdout);
  lua_pop(L, 1);
}

static void write_key_preview(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING && is_identifier(lua_tostring(L, idx))) {
    fputs(lua_tostring(L, idx), stdout);
    return;
  }
  fputc('[', stdout);
  write_value_preview(L, idx);
  fputc(']', stdout);
}

/* "{1, 2, x = 3, f = function, ... (12 entries)}": one level deep; the
 * leading run 1, 2, ... is shown without keys. */
static void write_table_preview(lua_State *L, int idx) {
  lua_Integer count = 0, next_index = 1;
  fputc('{', stdout);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (++count <= TABLE_PREVIEW_MAX) {
      if (count > 1) fputs(", ", stdout);
      if (lua_isinteger(L, -2) && lua_tointeger(L, -2) == next_index) {
        next_index++;
      } else {
        write_key_preview(L, lua_gettop(L) - 1);
        fputs(" = ", stdout);
      }
      write_value_preview(L, lua_gettop(L));
    }
    lua_pop(L, 1);
  }
  if (count > TABLE_PREVIEW_MAX) printf(", ... (%lld entries)", (long long)count);
  fputc('}', stdout);
}

/* print_results(...): like print, but plain tables show their contents.
 * Called protected, since __tostring may fail. */
static int print_results(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    if (i > 1) fputc('\t', stdout);
    if (is_plain_table(L, i)) {
      write_table_preview(L, i);
    } else {
      fputs(luaL_tolstring(L, i, NULL), stdout);
      lua_pop(L, 1);
    }
  }
  fputc('\n', stdout);
  fflush(stdout);
  return 0;
}

static void run_and_print(const struct repl *r) {
  lua_State *L = r->L;
  int base = lua_gettop(L); /* the function, then its results */
  if (call_interruptible(r, 0, LUA_MULTRET) != LUA_OK) {
    report_error(L);
    return;
  }
  int n = lua_gettop(L) - base + 1;
  if (n <= 0) return;
  lua_pushcfunction(L, print_results);
  lua_insert(L, base);
  if (call_interruptible(r, n, 0) != LUA_OK) report_error(L);
}

/* ---- the loop ----------------------------------------------------------- */

static const char banner_code[] =
    "local i = require('cleave').info()\n"
    "return string.format('cleave %s on %s \xe2\x80\x94 %s. `cl` is require \"cleave\"; '\n"
    "  .. 'Tab completes, Ctrl-C interrupts, Ctrl-D exits.', i.version, i.device, i.device_name)";

static void print_banner(lua_State *L) {
  if (luaL_loadbufferx(L, banner_code, sizeof banner_code - 1, "=(banner)", "t") == LUA_OK &&
      lua_pcall(L, 0, 1, 0) == LUA_OK) {
    printf("%s\n", lua_tostring(L, -1));
  } else {
    printf("cleave %s (%s). Ctrl-D exits, Ctrl-C interrupts.\n", CLEAVE_VERSION, lua_tostring(L, -1));
  }
  lua_pop(L, 1);
}

/* The global `cl` is the cleave module, to save typing. */
static void expose_module(lua_State *L) {
  luaL_requiref(L, "cleave", luaopen_cleave, 0);
  lua_setglobal(L, "cl");
}

/* Runs protected (lua_pcall), so that even a memory error inside the loop
 * ends the REPL through cl_repl's clean-up rather than a panic. */
static int repl_main(lua_State *L) {
  struct repl *r = lua_touserdata(L, 1);
  expose_module(L);
  print_banner(L);
  for (;;) {
    int top = lua_gettop(L);
    enum chunk_status status = read_chunk(r);
    if (status == CHUNK_EOF) break;
    if (status == CHUNK_READY) run_and_print(r);
    else if (status == CHUNK_FAILED) report_error(L);
    assert(lua_gettop(L) == top); /* every chunk leaves the stack balanced */
    (void)top;                    /* without assert (NDEBUG) */
  }
  return 0;
}

static void readline_setup(lua_State *L) {
  completion_state = L;
  rl_readline_name = "cleave"; /* for $if cleave in ~/.inputrc */
  rl_instream = stdin;
  rl_outstream = stdout;
  rl_catch_signals = 0; /* SIGINT and SIGWINCH are ours (see the top) */
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = complete;
  rl_basic_word_break_characters = WORD_BREAKS;
}

int cl_repl(lua_State *L) {
  struct repl r = {.L = L};
  readline_setup(L);
  history_open(&r);
  signals_take(&r);
  lua_pushcfunction(L, repl_main);
  lua_pushlightuserdata(L, &r);
  int status = lua_pcall(L, 1, 0, 0);
  if (status != LUA_OK) report_error(L);
  rl_callback_handler_remove(); /* restores the terminal if an error left it raw */
  signals_give_back(&r);
  history_close(&r);
  return status == LUA_OK ? 0 : 1;
}
