;; SPDX-License-Identifier: MIT
;;; keymap.lisp --- a keymap-like nested structure, as an editor has.
;;
;; A keymap is (keymap [NAME] (EVENT . BINDING)...); a binding may be a
;; command symbol or another keymap (a prefix).  Keys are strings of
;; space-separated events ("C-x C-f"), each event an interned symbol.

(defun make-sparse-keymap (&optional name)
  "A new empty keymap, with NAME (a string) when given."
  (if name (list 'keymap name) (list 'keymap)))

(defun keymapp (object)
  "True if OBJECT is a keymap."
  (and (consp object) (eq (car object) 'keymap)))

(defun key-events (key)
  "The events of KEY, a string such as \"C-x C-f\", as symbols."
  (mapcar #'intern (split-string key)))

(defun keymap--binding (map event)
  "The (EVENT . BINDING) pair of EVENT directly in MAP, or nil."
  (assq event (if (stringp (cadr map)) (cddr map) (cdr map))))

(defun keymap--add (map event binding)
  "Bind EVENT to BINDING directly in MAP; return BINDING."
  (let ((pair (keymap--binding map event)))
    (if pair
        (setcdr pair binding)
      (let ((tail (if (stringp (cadr map)) (cdr map) map)))
        (setcdr tail (cons (cons event binding) (cdr tail)))))
    binding))

(defun define-key (map key binding)
  "Bind KEY (a string of events) to BINDING in MAP, making prefix maps."
  (let ((events (key-events key)))
    (while (cdr events)
      (let* ((pair (keymap--binding map (car events)))
             (next (cdr pair)))
        (unless (keymapp next)
          (setq next (keymap--add map (car events) (make-sparse-keymap))))
        (setq map next))
      (setq events (cdr events)))
    (keymap--add map (car events) binding)))

(defun lookup-key (map key)
  "The binding of KEY in MAP, or nil."
  (let ((events (key-events key)) (binding map))
    (while (and events (keymapp binding))
      (setq binding (cdr (keymap--binding binding (pop events)))))
    (if events nil binding)))

(defun keymap-bindings (map &optional prefix)
  "All (KEY . COMMAND) bindings reachable in MAP, KEY a string."
  (let ((result nil))
    (dolist (pair (if (stringp (cadr map)) (cddr map) (cdr map)))
      (let ((key (if prefix (concat prefix " " (symbol-name (car pair)))
                   (symbol-name (car pair)))))
        (if (keymapp (cdr pair))
            (setq result (append (keymap-bindings (cdr pair) key) result))
          (push (cons key (cdr pair)) result))))
    result))

(defvar global-map (make-sparse-keymap "global")
  "The keymap of global bindings.")

(defvar ctl-x-map (make-sparse-keymap "C-x")
  "The keymap of the C-x prefix.")

(defvar help-map (make-sparse-keymap "help")
  "The keymap of the help prefix.")

(keymap--add global-map 'C-x ctl-x-map)
(keymap--add global-map 'C-h help-map)

;; Self-inserting printable characters.
(dotimes (i 95)
  (define-key global-map (string (+ i 32)) 'self-insert-command))

(let ((commands '(("C-f" . forward-char) ("C-b" . backward-char)
                  ("C-n" . next-line) ("C-p" . previous-line)
                  ("C-a" . beginning-of-line) ("C-e" . end-of-line)
                  ("M-f" . forward-word) ("M-b" . backward-word)
                  ("C-d" . delete-char) ("C-k" . kill-line)
                  ("C-y" . yank) ("C-w" . kill-region) ("M-w" . copy-region)
                  ("C-s" . isearch-forward) ("C-r" . isearch-backward)
                  ("C-x C-f" . find-file) ("C-x C-s" . save-buffer)
                  ("C-x C-c" . save-buffers-kill) ("C-x b" . switch-to-buffer)
                  ("C-x k" . kill-buffer) ("C-x o" . other-window)
                  ("C-x 4 f" . find-file-other-window) ("C-x 4 b" . switch-to-buffer-other-window)
                  ("C-x r t" . string-rectangle) ("C-x r k" . kill-rectangle)
                  ("C-h f" . describe-function) ("C-h v" . describe-variable)
                  ("C-h k" . describe-key) ("C-h m" . describe-mode))))
  (dolist (c commands)
    (define-key global-map (car c) (cdr c))))

;; Mode maps under C-c, the way packages add theirs.
(dotimes (m 24)
  (let ((prefix (format "C-c %c" (+ ?a m))))
    (dotimes (k 16)
      (define-key global-map (format "%s C-%c" prefix (+ ?a k))
        (intern (format "mode-%d-command-%d" m k))))))
